// F::layer_norm, F::group_norm and F::normalize with LibTorch's options:
//   F::layer_norm(x, F::LayerNormFuncOptions({16}).eps(1e-6))   F::normalize(x)
#pragma once

#include "ember/math.h"
#include "ember/nn/functional/layers.h"
#include "ember/tensor.h"
#include "torch/nn/options/normalization.h"

namespace torch::nn::functional {

inline ember::Tensor layer_norm(const ember::Tensor& input, const LayerNormFuncOptions& options) {
  return ember::nn::functional::layer_norm(
      input, options.normalized_shape(),
      {.weight = options.weight(), .bias = options.bias(), .eps = options.eps()});
}
inline ember::Tensor group_norm(const ember::Tensor& input, const GroupNormFuncOptions& options) {
  return ember::nn::functional::group_norm(
      input, options.num_groups(),
      {.weight = options.weight(), .bias = options.bias(), .eps = options.eps()});
}
/// input / max(||input||_p along dim, eps).
inline ember::Tensor normalize(const ember::Tensor& input, NormalizeFuncOptions options = {}) {
  return input / input.norm(options.p(), options.dim(), /*keepdim=*/true)
                     .clamp_min(options.eps())
                     .expand_as(input);
}

}  // namespace torch::nn::functional
