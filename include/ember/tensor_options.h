// Options for creating tensors: TensorOptions {.dtype, .device, .requires_grad} and RandomOptions
// (the same plus .generator); unset fields take defaults (the default float dtype or the dtype
// inferred from the data, the CPU, no grad). LibTorch's spellings work too: the free functions
// dtype(kInt64), device(kCUDA) and requires_grad() start a chain
// (dtype(kFloat64).requires_grad(true)) that converts to either options struct.
#pragma once

#include <concepts>
#include <optional>

#include "ember/device.h"
#include "ember/dtype.h"

namespace ember {

class Generator;

namespace detail {

// The fields' types. Calling a field, as LibTorch's TensorOptions().dtype(kFloat32) would, stops
// the build with a message naming ember's spellings (gcc would otherwise say only "no match for
// call to std::optional" or "cannot be used as a function").
struct RejectsBuilderCall {
  template <class... Args>
  auto operator()(Args&&...) const {  // `auto`: the assertion comes before any other error
    static_assert(sizeof...(Args) > 1000,
                  "ember's TensorOptions is a struct, not LibTorch's builder: write "
                  "TensorOptions{.dtype = kFloat32, .device = kCUDA, .requires_grad = true}, "
                  "{.dtype = kFloat32} as a factory's argument, or start the chain from the free "
                  "functions: dtype(kFloat32).device(kCUDA).requires_grad(true)");
    return *this;
  }
};

template <class T>
struct OptionField : std::optional<T>, RejectsBuilderCall {
  using std::optional<T>::optional;
  OptionField() = default;
  OptionField(const std::optional<T>& o) : std::optional<T>(o) {}  // NOLINT (not inherited)
};

struct FlagField : RejectsBuilderCall {
  FlagField(bool on = false) : value(on) {}  // NOLINT: {.requires_grad = true}
  operator bool() const { return value; }    // NOLINT
  bool value;
};

}  // namespace detail

struct TensorOptions {
  detail::OptionField<Dtype> dtype = {};
  detail::OptionField<Device> device = {};
  detail::FlagField requires_grad = false;
};

struct RandomOptions {
  detail::OptionField<Dtype> dtype = {};
  detail::OptionField<Device> device = {};
  detail::FlagField requires_grad = false;
  Generator* generator = nullptr;  // null: the default generator
};

/// LibTorch's chained options, dtype(kFloat64).device(kCUDA).requires_grad(true): each call
/// returns a copy with one field set; converts to TensorOptions and RandomOptions.
class TensorOptionsChain {
 public:
  TensorOptionsChain dtype(Dtype d) const { return with([&](TensorOptions& o) { o.dtype = d; }); }
  TensorOptionsChain device(Device d) const {
    return with([&](TensorOptions& o) { o.device = d; });
  }
  TensorOptionsChain requires_grad(bool on = true) const {
    return with([&](TensorOptions& o) { o.requires_grad = on; });
  }
  operator TensorOptions() const { return options_; }  // NOLINT: zeros({2}, dtype(kInt64))
  operator RandomOptions() const {                     // NOLINT: randn({2}, requires_grad())
    return {.dtype = options_.dtype, .device = options_.device,
            .requires_grad = options_.requires_grad};
  }

 private:
  template <class F>
  TensorOptionsChain with(F set) const {
    TensorOptionsChain copy = *this;
    set(copy.options_);
    return copy;
  }
  TensorOptions options_;
};

/// torch::dtype(kInt64), torch::device(kCUDA), torch::requires_grad(): a chain with one field set.
inline TensorOptionsChain dtype(Dtype d) { return TensorOptionsChain().dtype(d); }
inline TensorOptionsChain device(Device d) { return TensorOptionsChain().device(d); }
inline TensorOptionsChain requires_grad(bool on = true) {
  return TensorOptionsChain().requires_grad(on);
}

/// LibTorch's shorthand of a dtype or a device alone in place of the options:
/// zeros({2}, kInt64), randn({2}, kCUDA). The factories take these through an overload that
/// converts them with options_from().
template <class T>
concept OptionsShorthand =
    std::same_as<T, Dtype> || std::same_as<T, Device> || std::same_as<T, DeviceType>;

inline TensorOptions options_from(Dtype d) { return {.dtype = d}; }
inline TensorOptions options_from(Device d) { return {.device = d}; }

}  // namespace ember
