// torch::nn::Conv1d, Conv2d, Conv3d and ConvTranspose2d over ember's layers, from LibTorch's
// options or positional arguments:
//   torch::nn::Conv2d(1, 10, /*kernel_size=*/5)
//   torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 10, {3, 5}).stride(2).padding(torch::kSame))
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ember/int_array.h"
#include "ember/nn/layers/conv.h"
#include "torch/nn/functional/conv.h"
#include "torch/nn/modules/common.h"
#include "torch/nn/modules/utils.h"
#include "torch/nn/options/conv.h"

namespace torch::nn {

namespace detail {
/// ember's keyword options for a convolution layer built from LibTorch's.
ember::nn::ConvOptions conv_options(const ConvOptions<1>& options);
ember::nn::ConvOptions conv_options(const ConvOptions<2>& options);
ember::nn::ConvOptions conv_options(const ConvOptions<3>& options);
ember::nn::ConvTransposeOptions conv_transpose_options(const ConvTransposeOptions<2>& options);
/// LibTorch's description of a convolution: "1, 10, kernel_size=[5, 5], stride=[2, 2], ...".
template <size_t D>
std::string conv_description(const ConvOptions<D>& options);
template <size_t D>
std::string conv_description(const ConvTransposeOptions<D>& options);
}  // namespace detail

// Conv1d, Conv2d and Conv3d: the same over D.
#define EMBER_TORCH_CONV(D)                                                                        \
  class Conv##D##dImpl : public ember::nn::Conv##D##dImpl {                                        \
   public:                                                                                         \
    Conv##D##dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<D> kernel_size) \
        : Conv##D##dImpl(Conv##D##dOptions(input_channels, output_channels, kernel_size)) {}       \
    explicit Conv##D##dImpl(Conv##D##dOptions options_)                                            \
        : ember::nn::Conv##D##dImpl(options_.in_channels(), options_.out_channels(),               \
                                    options_.kernel_size().vec(), detail::conv_options(options_)), \
          options(std::move(options_)) {}                                                          \
    EMBER_TORCH_LAYER_NAME(Conv##D##d)                                                             \
    std::string extra_repr() const override { return detail::conv_description(options); }          \
    Conv##D##dOptions options;                                                                     \
  };                                                                                               \
  TORCH_MODULE(Conv##D##d)
EMBER_TORCH_CONV(1);
EMBER_TORCH_CONV(2);
EMBER_TORCH_CONV(3);
#undef EMBER_TORCH_CONV

class ConvTranspose2dImpl : public ember::nn::ConvTranspose2dImpl {
 public:
  ConvTranspose2dImpl(int64_t input_channels, int64_t output_channels,
                      ExpandingArray<2> kernel_size)
      : ConvTranspose2dImpl(ConvTranspose2dOptions(input_channels, output_channels, kernel_size)) {}
  explicit ConvTranspose2dImpl(ConvTranspose2dOptions options_)
      : ember::nn::ConvTranspose2dImpl(options_.in_channels(), options_.out_channels(),
                                       options_.kernel_size().vec(),
                                       detail::conv_transpose_options(options_)),
        options(std::move(options_)) {}
  /// output_size ({H, W}, or with N and C first) picks the output_padding that gives it.
  ember::Tensor forward(const ember::Tensor& input,
                        const std::optional<ember::IntArrayRef>& output_size = std::nullopt) {
    return ember::nn::ConvTranspose2dImpl::forward(
        input, output_size ? output_size->vec() : std::vector<int64_t>{});
  }
  EMBER_TORCH_LAYER_NAME(ConvTranspose2d)
  std::string extra_repr() const override { return detail::conv_description(options); }
  ConvTranspose2dOptions options;

 protected:
  FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(std::optional<ember::IntArrayRef>())})
};
TORCH_MODULE(ConvTranspose2d);

}  // namespace torch::nn
