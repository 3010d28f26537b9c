// F::dropout and F::dropout2d with LibTorch's options (training on by default, as LibTorch's):
//   F::dropout(x, F::DropoutFuncOptions().p(0.2).training(is_training()))
#pragma once

#include "ember/nn/functional/layers.h"
#include "ember/tensor.h"
#include "torch/nn/options/dropout.h"

namespace torch::nn::functional {

namespace detail {
inline ember::nn::functional::DropoutFuncOptions dropout_options(const DropoutFuncOptions& o) {
  return {.p = o.p(), .training = o.training(), .inplace = o.inplace()};
}
}  // namespace detail

inline ember::Tensor dropout(ember::Tensor input, const DropoutFuncOptions& options = {}) {
  return ember::nn::functional::dropout(input, detail::dropout_options(options));
}
inline ember::Tensor dropout2d(ember::Tensor input, const Dropout2dFuncOptions& options = {}) {
  return ember::nn::functional::dropout2d(input, detail::dropout_options(options));
}
inline ember::Tensor dropout3d(ember::Tensor input, const Dropout3dFuncOptions& options = {}) {
  return ember::nn::functional::dropout3d(input, detail::dropout_options(options));
}

}  // namespace torch::nn::functional
