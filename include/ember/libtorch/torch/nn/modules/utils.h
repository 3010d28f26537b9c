// What the torch::nn layers share: each is ember's layer (its Impl derives from ember's, so
// forward, parameters, buffers and reset_parameters are ember's) built from LibTorch's options,
// which it keeps as `options`, and named as LibTorch prints it ("torch::nn::Linear").
#pragma once

#include <string>

#include "ember/nn/module.h"
#include "torch/nn/pimpl.h"

/// Inside a torch::nn layer's Impl: the name LibTorch prints for it.
#define EMBER_TORCH_LAYER_NAME(Name) \
  std::string name() const override { return "torch::nn::" #Name; }

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
