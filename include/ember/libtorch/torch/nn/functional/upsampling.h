// F::interpolate with LibTorch's options (exactly one of size and scale_factor):
//   F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2})
//                         .mode(torch::kBilinear).align_corners(false))
#pragma once

#include "ember/nn/functional/conv.h"
#include "ember/tensor.h"
#include "torch/nn/options/upsampling.h"

namespace torch::nn::functional {

namespace detail {
/// ember's interpolate options from LibTorch's (antialias is refused: ember has none).
ember::nn::functional::InterpolateFuncOptions interpolate_options(
    const InterpolateFuncOptions& options);
}  // namespace detail

inline ember::Tensor interpolate(const ember::Tensor& input,
                                 const InterpolateFuncOptions& options = {}) {
  return ember::nn::functional::interpolate(input, detail::interpolate_options(options));
}

}  // namespace torch::nn::functional
