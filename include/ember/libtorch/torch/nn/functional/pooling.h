// torch::nn::functional's pooling with LibTorch's options, which carry the kernel (or output)
// size:
//   F::max_pool2d(x, F::MaxPool2dFuncOptions(2).stride(2))
//   F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions({1, 1}))
#pragma once

#include <tuple>

#include "ember/nn/functional/conv.h"
#include "ember/tensor.h"
#include "torch/nn/options/pooling.h"

namespace torch::nn::functional {

namespace detail {
template <size_t D>
ember::nn::functional::MaxPoolFuncOptions max_pool_options(const MaxPoolOptions<D>& o) {
  return {.stride = o.stride().vec(),
          .padding = o.padding().vec(),
          .dilation = o.dilation().vec(),
          .ceil_mode = o.ceil_mode()};
}
template <size_t D>
ember::nn::functional::AvgPoolFuncOptions avg_pool_options(const AvgPoolOptions<D>& o) {
  return {.stride = o.stride().vec(),
          .padding = o.padding().vec(),
          .ceil_mode = o.ceil_mode(),
          .count_include_pad = o.count_include_pad(),
          .divisor_override = o.divisor_override()};
}
/// Output sizes with nullopt entries replaced by the input's sizes there.
std::vector<int64_t> adaptive_output_size(const ember::Tensor& input,
                                          const ExpandingArrayWithOptionalElem<2>& output_size);
}  // namespace detail

// The max and average pools: F::name(input, options) with the kernel size in the options.
#define EMBER_TORCH_POOL(name, Options, convert)                           \
  inline auto name(const ember::Tensor& input, const Options& options) {   \
    return ember::nn::functional::name(input, options.kernel_size().vec(), \
                                       detail::convert(options));          \
  }
EMBER_TORCH_POOL(max_pool1d, MaxPool1dFuncOptions, max_pool_options)
EMBER_TORCH_POOL(max_pool2d, MaxPool2dFuncOptions, max_pool_options)
EMBER_TORCH_POOL(max_pool1d_with_indices, MaxPool1dFuncOptions, max_pool_options)
EMBER_TORCH_POOL(max_pool2d_with_indices, MaxPool2dFuncOptions, max_pool_options)
EMBER_TORCH_POOL(avg_pool1d, AvgPool1dFuncOptions, avg_pool_options)
EMBER_TORCH_POOL(avg_pool2d, AvgPool2dFuncOptions, avg_pool_options)
#undef EMBER_TORCH_POOL

inline ember::Tensor adaptive_avg_pool1d(const ember::Tensor& input,
                                         const AdaptiveAvgPool1dFuncOptions& options) {
  return ember::nn::functional::adaptive_avg_pool1d(input, options.output_size().vec());
}
inline ember::Tensor adaptive_avg_pool2d(const ember::Tensor& input,
                                         const AdaptiveAvgPool2dFuncOptions& options) {
  return ember::nn::functional::adaptive_avg_pool2d(
      input, detail::adaptive_output_size(input, options.output_size()));
}
inline ember::Tensor adaptive_max_pool1d(const ember::Tensor& input,
                                         const AdaptiveMaxPool1dFuncOptions& options) {
  return ember::nn::functional::adaptive_max_pool1d(input, options.output_size().vec());
}
inline std::tuple<ember::Tensor, ember::Tensor> adaptive_max_pool1d_with_indices(
    const ember::Tensor& input, const AdaptiveMaxPool1dFuncOptions& options) {
  return ember::nn::functional::adaptive_max_pool1d_with_indices(input,
                                                                 options.output_size().vec());
}
inline ember::Tensor adaptive_max_pool2d(const ember::Tensor& input,
                                         const AdaptiveMaxPool2dFuncOptions& options) {
  return ember::nn::functional::adaptive_max_pool2d(
      input, detail::adaptive_output_size(input, options.output_size()));
}
inline std::tuple<ember::Tensor, ember::Tensor> adaptive_max_pool2d_with_indices(
    const ember::Tensor& input, const AdaptiveMaxPool2dFuncOptions& options) {
  return ember::nn::functional::adaptive_max_pool2d_with_indices(
      input, detail::adaptive_output_size(input, options.output_size()));
}

}  // namespace torch::nn::functional
