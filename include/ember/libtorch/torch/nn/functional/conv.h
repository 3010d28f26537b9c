// F::conv1d/conv2d/conv3d and F::conv_transpose1d/2d with LibTorch's options:
//   F::conv2d(x, w, F::Conv2dFuncOptions().stride(2).padding(1).bias(b))
#pragma once

#include "ember/nn/functional/conv.h"
#include "ember/tensor.h"
#include "torch/nn/options/conv.h"

namespace torch::nn::functional {

namespace detail {
/// ember's padding from LibTorch's: sizes, "valid" or "same".
template <size_t D>
ember::nn::functional::ConvPadding conv_padding(const torch::nn::detail::conv_padding_t<D>& p) {
  if (std::holds_alternative<enumtype::kValid>(p)) return "valid";
  if (std::holds_alternative<enumtype::kSame>(p)) return "same";
  return std::get<ExpandingArray<D>>(p).vec();
}
template <size_t D>
ember::nn::functional::ConvFuncOptions conv_options(const ConvFuncOptions<D>& o) {
  return {.bias = o.bias(),
          .stride = o.stride().vec(),
          .padding = conv_padding<D>(o.padding()),
          .dilation = o.dilation().vec(),
          .groups = o.groups()};
}
template <size_t D>
ember::nn::functional::ConvTransposeFuncOptions conv_transpose_options(
    const ConvTransposeFuncOptions<D>& o) {
  return {.bias = o.bias(),
          .stride = o.stride().vec(),
          .padding = o.padding().vec(),
          .output_padding = o.output_padding().vec(),
          .groups = o.groups(),
          .dilation = o.dilation().vec()};
}
}  // namespace detail

inline ember::Tensor conv1d(const ember::Tensor& input, const ember::Tensor& weight,
                            const Conv1dFuncOptions& options = {}) {
  return ember::nn::functional::conv1d(input, weight, detail::conv_options(options));
}
inline ember::Tensor conv2d(const ember::Tensor& input, const ember::Tensor& weight,
                            const Conv2dFuncOptions& options = {}) {
  return ember::nn::functional::conv2d(input, weight, detail::conv_options(options));
}
inline ember::Tensor conv3d(const ember::Tensor& input, const ember::Tensor& weight,
                            const Conv3dFuncOptions& options = {}) {
  return ember::nn::functional::conv3d(input, weight, detail::conv_options(options));
}
inline ember::Tensor conv_transpose1d(const ember::Tensor& input, const ember::Tensor& weight,
                                      const ConvTranspose1dFuncOptions& options = {}) {
  return ember::nn::functional::conv_transpose1d(input, weight,
                                                 detail::conv_transpose_options(options));
}
inline ember::Tensor conv_transpose2d(const ember::Tensor& input, const ember::Tensor& weight,
                                      const ConvTranspose2dFuncOptions& options = {}) {
  return ember::nn::functional::conv_transpose2d(input, weight,
                                                 detail::conv_transpose_options(options));
}

}  // namespace torch::nn::functional
