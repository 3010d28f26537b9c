// torch::nn::MaxPool1d/2d, AvgPool2d and AdaptiveAvgPool2d over ember's, from a kernel size
// (or output size) or LibTorch's options:
//   torch::nn::MaxPool2d(2)   torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions({3, 2}).stride(1))
//   torch::nn::AdaptiveAvgPool2d(torch::nn::AdaptiveAvgPool2dOptions({4, c10::nullopt}))
#pragma once

#include <sstream>
#include <string>

#include "ember/nn/layers/pooling.h"
#include "torch/nn/functional/pooling.h"
#include "torch/nn/modules/utils.h"
#include "torch/nn/options/pooling.h"

namespace torch::nn {

namespace detail {
template <size_t D>
ember::nn::MaxPoolOptions max_pool_options(const MaxPoolOptions<D>& o) {
  return {.stride = o.stride().vec(),
          .padding = o.padding().vec(),
          .dilation = o.dilation().vec(),
          .ceil_mode = o.ceil_mode()};
}
template <size_t D>
std::string max_pool_description(const MaxPoolOptions<D>& o) {
  std::ostringstream s;
  s << "kernel_size=" << o.kernel_size() << ", stride=" << o.stride() << ", padding=" << o.padding()
    << ", dilation=" << o.dilation() << ", ceil_mode=" << bool_string(o.ceil_mode());
  return s.str();
}
}  // namespace detail

#define EMBER_TORCH_MAX_POOL(D)                                                               \
  class MaxPool##D##dImpl : public ember::nn::MaxPool##D##dImpl {                             \
   public:                                                                                    \
    explicit MaxPool##D##dImpl(ExpandingArray<D> kernel_size)                                 \
        : MaxPool##D##dImpl(MaxPool##D##dOptions(kernel_size)) {}                             \
    explicit MaxPool##D##dImpl(const MaxPool##D##dOptions& options_)                          \
        : ember::nn::MaxPool##D                                                               \
          ##dImpl(options_.kernel_size().vec(), detail::max_pool_options(options_)),          \
          options(options_) {}                                                                \
    EMBER_TORCH_LAYER_NAME(MaxPool##D##d)                                                     \
    std::string extra_repr() const override { return detail::max_pool_description(options); } \
    MaxPool##D##dOptions options;                                                             \
  };                                                                                          \
  TORCH_MODULE(MaxPool##D##d)
EMBER_TORCH_MAX_POOL(1);
EMBER_TORCH_MAX_POOL(2);
#undef EMBER_TORCH_MAX_POOL

class AvgPool2dImpl : public ember::nn::AvgPool2dImpl {
 public:
  explicit AvgPool2dImpl(ExpandingArray<2> kernel_size)
      : AvgPool2dImpl(AvgPool2dOptions(kernel_size)) {}
  explicit AvgPool2dImpl(const AvgPool2dOptions& options_)
      : ember::nn::AvgPool2dImpl(options_.kernel_size().vec(),
                                 {.stride = options_.stride().vec(),
                                  .padding = options_.padding().vec(),
                                  .ceil_mode = options_.ceil_mode(),
                                  .count_include_pad = options_.count_include_pad(),
                                  .divisor_override = options_.divisor_override()}),
        options(options_) {}
  EMBER_TORCH_LAYER_NAME(AvgPool2d)
  std::string extra_repr() const override {
    std::ostringstream s;
    s << "kernel_size=" << options.kernel_size() << ", stride=" << options.stride()
      << ", padding=" << options.padding();
    return s.str();
  }
  AvgPool2dOptions options;
};
TORCH_MODULE(AvgPool2d);

/// A nullopt output size keeps the input's size in that dim.
class AdaptiveAvgPool2dImpl : public ember::nn::AdaptiveAvgPool2dImpl {
 public:
  explicit AdaptiveAvgPool2dImpl(ExpandingArrayWithOptionalElem<2> output_size)
      : AdaptiveAvgPool2dImpl(AdaptiveAvgPool2dOptions(output_size)) {}
  explicit AdaptiveAvgPool2dImpl(const AdaptiveAvgPool2dOptions& options_)
      : ember::nn::AdaptiveAvgPool2dImpl(1), options(options_) {}
  ember::Tensor forward(const ember::Tensor& input) {
    return functional::adaptive_avg_pool2d(input, options);
  }
  EMBER_TORCH_LAYER_NAME(AdaptiveAvgPool2d)
  std::string extra_repr() const override {
    std::ostringstream s;
    s << "output_size=" << options.output_size();
    return s.str();
  }
  AdaptiveAvgPool2dOptions options;
};
TORCH_MODULE(AdaptiveAvgPool2d);

}  // namespace torch::nn
