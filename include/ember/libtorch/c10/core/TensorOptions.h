// LibTorch's TensorOptions, the builder: TensorOptions().dtype(kFloat32).requires_grad(true).
// Each setter returns a changed copy; the same names without arguments read the option back.
// It converts to ember's TensorOptions and RandomOptions, so every factory takes it, and it is
// built from what LibTorch builds it from: a dtype, a device or device type, or ember's options
// (t.options()). Printed, it reads as LibTorch's: each option LibTorch's builder had set shown
// bare, the rest marked "(default)".
#pragma once

#include <iosfwd>
#include <optional>

#include "ember/tensor_options.h"

namespace c10 {

/// ember's tensors are all strided; LibTorch's sparse and mkldnn layouts have no spelling here,
/// so a program that asks for one fails to compile instead of getting a strided tensor.
enum class Layout { Strided };
constexpr Layout kStrided = Layout::Strided;
std::ostream& operator<<(std::ostream& os, Layout layout);

class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ember::Dtype d) { options_.dtype = d; }             // NOLINT: implicit, as LibTorch's
  TensorOptions(ember::Device d) { options_.device = d; }           // NOLINT
  TensorOptions(ember::DeviceType t) { options_.device = ember::Device(t); }  // NOLINT
  TensorOptions(Layout) : layout_set_(true) {}                      // NOLINT
  // t.options(): a tensor's options carry its layout too, as LibTorch's do.
  TensorOptions(const ember::TensorOptions& o)  // NOLINT
      : options_(o), layout_set_(true), requires_grad_set_(o.requires_grad) {}
  TensorOptions(const ember::TensorOptionsChain& chain)  // NOLINT: dtype(kInt64)
      : options_(chain), requires_grad_set_(options_.requires_grad) {}

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
    copy.requires_grad_set_ = true;
    return copy;
  }
  TensorOptions layout(Layout) const {
    TensorOptions copy = *this;
    copy.layout_set_ = true;
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
  Layout layout() const { return kStrided; }
  bool has_dtype() const { return options_.dtype.has_value(); }
  bool has_device() const { return options_.device.has_value(); }
  bool has_layout() const { return layout_set_; }
  bool has_requires_grad() const { return requires_grad_set_; }

  operator ember::TensorOptions() const { return options_; }  // NOLINT: zeros({2}, options)
  operator ember::RandomOptions() const {                     // NOLINT: randn({2}, options)
    return {.dtype = options_.dtype, .device = options_.device,
            .requires_grad = options_.requires_grad};
  }

 private:
  ember::TensorOptions options_;
  bool layout_set_ = false;
  bool requires_grad_set_ = false;
};

/// "TensorOptions(dtype=float, device=cpu (default), layout=Strided (default), ...)".
std::ostream& operator<<(std::ostream& os, const TensorOptions& options);

}  // namespace c10

namespace ember {
/// `std::cout << t.options()`: ember's Tensor::options() returns ember's struct, which LibTorch
/// programs print as LibTorch's TensorOptions. Declared in ember's namespace so that argument-
/// dependent lookup finds it; ember's core prints no TensorOptions, so only the layer has one.
std::ostream& operator<<(std::ostream& os, const TensorOptions& options);
}  // namespace ember
