// LibTorch's TensorOptions, the builder: TensorOptions().dtype(kFloat32).requires_grad(true).
// Each setter returns a changed copy; the same names without arguments read the option back.
// It converts to ember's TensorOptions and RandomOptions, so every factory takes it, and it is
// built from what LibTorch builds it from: a dtype, a device or device type, or ember's options
// (t.options()).
#pragma once

#include <optional>

#include "ember/tensor_options.h"

namespace c10 {

class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ember::Dtype d) { options_.dtype = d; }             // NOLINT: implicit, as LibTorch's
  TensorOptions(ember::Device d) { options_.device = d; }           // NOLINT
  TensorOptions(ember::DeviceType t) { options_.device = ember::Device(t); }  // NOLINT
  TensorOptions(const ember::TensorOptions& o) : options_(o) {}     // NOLINT: t.options()
  TensorOptions(const ember::TensorOptionsChain& chain) : options_(chain) {}  // NOLINT: dtype(kInt64)

  TensorOptions dtype(ember::Dtype d) const {
    TensorOptions copy = *this;
    copy.options_.dtype = d;
    return copy;
  }
  template <class T>
  TensorOptions dtype() const {
    return dtype(ember::dtype_of<T>());
  }
  TensorOptions device(ember::Device d) const {
    TensorOptions copy = *this;
    copy.options_.device = d;
    return copy;
  }
  TensorOptions device(ember::DeviceType type, int index = -1) const {
    return device(ember::Device(type, index));
  }
  TensorOptions requires_grad(bool on) const {
    TensorOptions copy = *this;
    copy.options_.requires_grad = on;
    return copy;
  }

  /// The options read back: the dtype set, or the default float dtype.
  ember::Dtype dtype() const {
    return options_.dtype.has_value() ? *options_.dtype : ember::default_dtype();
  }
  ember::Device device() const {
    return options_.device.has_value() ? *options_.device : ember::Device(ember::kCPU);
  }
  bool requires_grad() const { return options_.requires_grad; }
  bool has_dtype() const { return options_.dtype.has_value(); }
  bool has_device() const { return options_.device.has_value(); }

  operator ember::TensorOptions() const { return options_; }  // NOLINT: zeros({2}, options)
  operator ember::RandomOptions() const {                     // NOLINT: randn({2}, options)
    return {.dtype = options_.dtype, .device = options_.device,
            .requires_grad = options_.requires_grad};
  }

 private:
  ember::TensorOptions options_;
};

}  // namespace c10
