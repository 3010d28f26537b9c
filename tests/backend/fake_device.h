// A fake second device for backend tests: a Backend named "fake" installed for kCUDA while the
// object lives, with host memory (tests read and write it directly) and only the kernels a test
// puts in its table. Its storages say cuda:0.
#pragma once

#include <ember/creation.h>
#include <ember/tensor_impl.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "backend/backend.h"

namespace ember::test {

inline const Device kFakeDevice(kCUDA, 0);
/// What an op says when the fake backend has no entry for it.
inline const std::string kMissing =
    "no kernel for cuda:0: the fake backend does not implement this op";

class FakeDevice {
 public:
  FakeDevice() {
    table.name = "fake";
    table.allocate = [](Device, size_t nbytes) -> void* {
      return nbytes == 0 ? nullptr : std::aligned_alloc(64, (nbytes + 63) / 64 * 64);
    };
    table.free = [](Device, void* data, size_t) { std::free(data); };
    previous_ = backend::install_backend(kCUDA, &table);
    calls().clear();
  }
  ~FakeDevice() { backend::install_backend(kCUDA, previous_); }
  FakeDevice(const FakeDevice&) = delete;
  FakeDevice& operator=(const FakeDevice&) = delete;

  /// The kernels this device has: fill in entries before running ops.
  backend::Backend table;

  /// What the fake kernels were asked to do, in order.
  static std::vector<std::string>& calls() {
    static std::vector<std::string> log;
    return log;
  }

  template <class T>
  static T* data(const Tensor& t) {
    return static_cast<T*>(t.impl()->data());
  }
  /// A tensor of `dtype` on the fake device holding `values`.
  template <class T>
  static Tensor tensor(const std::vector<T>& values, Dtype dtype = dtype_of<T>()) {
    Tensor t = empty({int64_t(values.size())}, {.dtype = dtype, .device = kFakeDevice});
    std::copy(values.begin(), values.end(), data<T>(t));
    return t;
  }
  template <class T>
  static std::vector<T> values(const Tensor& t) {
    return {data<T>(t), data<T>(t) + t.numel()};
  }
  /// A CPU tensor over t's memory (same address, sizes and strides): what a fake kernel hands a
  /// CPU routine, and how a test reads a result where it lies.
  static Tensor host_view(const Tensor& t) {
    return from_blob(t.impl()->data(), t.sizes(), t.strides(), t.dtype());
  }
  /// A copy of the CPU tensor `cpu` on the fake device.
  static Tensor copy_of(const Tensor& cpu) {
    Tensor t = empty(cpu.sizes(), {.dtype = cpu.dtype(), .device = kFakeDevice});
    host_view(t).copy_(cpu);
    return t;
  }

 private:
  const backend::Backend* previous_ = nullptr;
};

}  // namespace ember::test
