// LibTorch's options for the pooling layers and functions; the functional options are the
// layers' ones (kernel size included), stride defaults to the kernel size:
//   torch::nn::MaxPool2dOptions(2).stride(2)   F::max_pool2d(x, F::MaxPool2dFuncOptions(3))
//   torch::nn::AdaptiveAvgPool2dOptions({4, c10::nullopt})   (nullopt: the input's size)
#pragma once

#include <cstdint>
#include <optional>

#include "torch/arg.h"
#include "torch/expanding_array.h"

namespace torch::nn {

template <size_t D>
struct AvgPoolOptions {
  /* implicit */ AvgPoolOptions(ExpandingArray<D> kernel_size)  // NOLINT
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride);
  TORCH_ARG(ExpandingArray<D>, padding) = 0;
  TORCH_ARG(bool, ceil_mode) = false;
  TORCH_ARG(bool, count_include_pad) = true;
  TORCH_ARG(std::optional<int64_t>, divisor_override) = std::nullopt;
};
using AvgPool1dOptions = AvgPoolOptions<1>;
using AvgPool2dOptions = AvgPoolOptions<2>;

template <size_t D>
struct MaxPoolOptions {
  /* implicit */ MaxPoolOptions(ExpandingArray<D> kernel_size)  // NOLINT
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride);
  TORCH_ARG(ExpandingArray<D>, padding) = 0;
  TORCH_ARG(ExpandingArray<D>, dilation) = 1;
  TORCH_ARG(bool, ceil_mode) = false;
};
using MaxPool1dOptions = MaxPoolOptions<1>;
using MaxPool2dOptions = MaxPoolOptions<2>;

template <typename output_size_t>
struct AdaptiveAvgPoolOptions {
  /* implicit */ AdaptiveAvgPoolOptions(output_size_t output_size)  // NOLINT
      : output_size_(output_size) {}
  TORCH_ARG(output_size_t, output_size);
};
using AdaptiveAvgPool1dOptions = AdaptiveAvgPoolOptions<ExpandingArray<1>>;
using AdaptiveAvgPool2dOptions = AdaptiveAvgPoolOptions<ExpandingArrayWithOptionalElem<2>>;

template <typename output_size_t>
struct AdaptiveMaxPoolOptions {
  /* implicit */ AdaptiveMaxPoolOptions(output_size_t output_size)  // NOLINT
      : output_size_(output_size) {}
  TORCH_ARG(output_size_t, output_size);
};
using AdaptiveMaxPool1dOptions = AdaptiveMaxPoolOptions<ExpandingArray<1>>;
using AdaptiveMaxPool2dOptions = AdaptiveMaxPoolOptions<ExpandingArrayWithOptionalElem<2>>;

namespace functional {
using AvgPool1dFuncOptions = AvgPool1dOptions;
using AvgPool2dFuncOptions = AvgPool2dOptions;
using MaxPool1dFuncOptions = MaxPool1dOptions;
using MaxPool2dFuncOptions = MaxPool2dOptions;
using AdaptiveAvgPool1dFuncOptions = AdaptiveAvgPool1dOptions;
using AdaptiveAvgPool2dFuncOptions = AdaptiveAvgPool2dOptions;
using AdaptiveMaxPool1dFuncOptions = AdaptiveMaxPool1dOptions;
using AdaptiveMaxPool2dFuncOptions = AdaptiveMaxPool2dOptions;
}  // namespace functional

}  // namespace torch::nn
