// What the torch::nn layers share: each is ember's layer (its Impl derives from ember's, so
// forward, parameters, buffers and reset_parameters are ember's) built from LibTorch's options,
// which it keeps as `options`, and named as LibTorch prints it ("torch::nn::Linear").
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "ember/nn/module.h"
#include "torch/nn/pimpl.h"

namespace torch::nn::detail {
/// A new layer like `layer`, before it takes layer's values: a container's own fresh_copy (its
/// children cloned), else built from the same options, else default-built.
template <class Impl>
std::shared_ptr<Impl> fresh_layer(const Impl& layer, const std::optional<ember::Device>& device) {
  if constexpr (requires { layer.fresh_copy(device); })
    return layer.fresh_copy(device);
  else if constexpr (requires { Impl(layer.options); })
    return std::make_shared<Impl>(layer.options);
  else
    return std::make_shared<Impl>();
}
}  // namespace torch::nn::detail

/// Inside a torch::nn layer's Impl: the name LibTorch prints for it, and LibTorch's clone() (the
/// layer built again, given this one's mode and values: clones, or copies on `device`; building
/// it draws the random numbers LibTorch's reset() draws).
#define EMBER_TORCH_LAYER_NAME(Name)                                                       \
  std::string name() const override { return "torch::nn::" #Name; }                       \
  std::shared_ptr<ember::nn::Module> clone(                                                \
      const std::optional<ember::Device>& device = std::nullopt) const override {          \
    auto copy = ::torch::nn::detail::fresh_layer(*this, device);                           \
    copy->copy_state_from(*this, device);                                                  \
    return copy;                                                                           \
  }

/// A layer without options: NameImpl over ember's, and the handle Name.
#define EMBER_TORCH_PLAIN_LAYER(Name)                      \
  class Name##Impl : public ember::nn::Name##Impl {        \
   public:                                                 \
    EMBER_TORCH_LAYER_NAME(Name)                           \
    std::string extra_repr() const override { return {}; } \
  };                                                       \
  TORCH_MODULE(Name)

namespace torch::nn::detail {
/// LibTorch's spelling of a bool in a module's description.
inline const char* bool_string(bool b) { return b ? "true" : "false"; }
}  // namespace torch::nn::detail
