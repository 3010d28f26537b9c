// Pooling layers: MaxPool1d/2d, AvgPool2d, AdaptiveAvgPool2d (torch.nn.MaxPool2d, ...), with
// PyTorch's options and repr (sizes are shown as given: `kernel_size=2` or `kernel_size=(2, 3)`).
//   nn::MaxPool2d pool(2);  nn::AvgPool2d avg(3, {.stride = 2, .padding = 1});
//   nn::AdaptiveAvgPool2d gap(1);  auto [y, idx] = pool->forward_with_indices(x);
#pragma once

#include <optional>
#include <tuple>

#include "ember/nn/functional/conv.h"
#include "ember/nn/module.h"

namespace ember::nn {

/// MaxPool keywords (PyTorch's return_indices is forward_with_indices); an empty stride means
/// stride = kernel_size.
struct MaxPoolOptions {
  functional::IntOrList stride = {};
  functional::IntOrList padding = 0;
  functional::IntOrList dilation = 1;
  bool ceil_mode = false;
};

/// Shared by MaxPool1d and MaxPool2d: the options and their repr.
class MaxPoolImplBase : public Module {
 public:
  MaxPoolImplBase(functional::IntOrList kernel_size, MaxPoolOptions options);
  std::string extra_repr() const override;
  functional::IntOrList kernel_size;
  MaxPoolOptions options;  // options.stride filled with kernel_size when it was empty

 protected:
  functional::MaxPoolFuncOptions func_options() const {
    return {.stride = options.stride, .padding = options.padding, .dilation = options.dilation,
            .ceil_mode = options.ceil_mode};
  }
};

/// (N, C, L) or (C, L) -> maxima over sliding windows.
class MaxPool1dImpl : public MaxPoolImplBase {
 public:
  explicit MaxPool1dImpl(functional::IntOrList kernel_size, MaxPoolOptions options = {})
      : MaxPoolImplBase(std::move(kernel_size), std::move(options)) {}
  Tensor forward(const Tensor& input);
  /// The maxima and their int64 positions within each input row.
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
};
class MaxPool1d : public ModuleHolder<MaxPool1dImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  MaxPool1d(functional::IntOrList kernel_size, MaxPoolOptions options = {})
      : ModuleHolder(std::make_shared<MaxPool1dImpl>(std::move(kernel_size), std::move(options))) {}
};

/// (N, C, H, W) or (C, H, W) -> maxima over sliding windows.
class MaxPool2dImpl : public MaxPoolImplBase {
 public:
  explicit MaxPool2dImpl(functional::IntOrList kernel_size, MaxPoolOptions options = {})
      : MaxPoolImplBase(std::move(kernel_size), std::move(options)) {}
  Tensor forward(const Tensor& input);
  /// The maxima and their int64 positions, flat within each input plane.
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
};
class MaxPool2d : public ModuleHolder<MaxPool2dImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  MaxPool2d(functional::IntOrList kernel_size, MaxPoolOptions options = {})
      : ModuleHolder(std::make_shared<MaxPool2dImpl>(std::move(kernel_size), std::move(options))) {}
};

/// AvgPool2d keywords; an empty stride means stride = kernel_size.
struct AvgPoolOptions {
  functional::IntOrList stride = {};
  functional::IntOrList padding = 0;
  bool ceil_mode = false;
  bool count_include_pad = true;
  std::optional<int64_t> divisor_override = {};
};

/// (N, C, H, W) or (C, H, W) -> means over sliding windows.
class AvgPool2dImpl : public Module {
 public:
  explicit AvgPool2dImpl(functional::IntOrList kernel_size, AvgPoolOptions options = {});
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  functional::IntOrList kernel_size;
  AvgPoolOptions options;  // options.stride filled with kernel_size when it was empty
};
class AvgPool2d : public ModuleHolder<AvgPool2dImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  AvgPool2d(functional::IntOrList kernel_size, AvgPoolOptions options = {})
      : ModuleHolder(std::make_shared<AvgPool2dImpl>(std::move(kernel_size), std::move(options))) {}
};

/// (N, C, H, W) or (C, H, W) -> (N, C, *output_size): means over windows that tile the input.
class AdaptiveAvgPool2dImpl : public Module {
 public:
  explicit AdaptiveAvgPool2dImpl(functional::IntOrList output_size)
      : output_size(std::move(output_size)) {}
  Tensor forward(const Tensor& input) {
    return functional::adaptive_avg_pool2d(input, output_size);
  }
  std::string extra_repr() const override;
  functional::IntOrList output_size;
};
class AdaptiveAvgPool2d : public ModuleHolder<AdaptiveAvgPool2dImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  AdaptiveAvgPool2d(functional::IntOrList output_size)  // NOLINT
      : ModuleHolder(std::make_shared<AdaptiveAvgPool2dImpl>(std::move(output_size))) {}
};

namespace detail {
/// An int-or-list as PyTorch prints the value it was given: `2` or `(2, 3)`.
std::string python_int_or_tuple(const functional::IntOrList& v);
}  // namespace detail

}  // namespace ember::nn
