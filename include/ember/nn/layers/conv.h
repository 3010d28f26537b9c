// Convolution layers: Conv1d, Conv2d, Conv3d and ConvTranspose2d (torch.nn.Conv1d, ...), with
// PyTorch's options (padding as sizes or "same"/"valid", padding_mode), initialisation and repr.
//   nn::Conv2d conv(3, 64, 3, {.stride = 1, .padding = 1});  Tensor y = conv(x);
//   conv->weight;  // (64, 3, 3, 3)
#pragma once

#include <string>
#include <vector>

#include "ember/nn/functional/conv.h"
#include "ember/nn/module.h"

namespace ember::nn {

/// Conv1d / Conv2d keywords, in PyTorch's order.
struct ConvOptions {
  functional::IntOrList stride = 1;
  functional::ConvPadding padding = 0;  // sizes, "valid" or "same" (stride 1 only)
  functional::IntOrList dilation = 1;
  int64_t groups = 1;
  bool bias = true;
  std::string padding_mode = "zeros";  // or "reflect", "replicate", "circular"
};

/// ConvTranspose2d keywords, in PyTorch's order.
struct ConvTransposeOptions {
  functional::IntOrList stride = 1;
  functional::IntOrList padding = 0;
  functional::IntOrList output_padding = 0;
  int64_t groups = 1;
  bool bias = true;
  functional::IntOrList dilation = 1;
  std::string padding_mode = "zeros";  // the only mode transposed convolutions support
};

/// What the convolution layers share (PyTorch's _ConvNd): the per-dim sizes expanded to
/// `dims` entries, weight (out, in / groups, *k) — or (in, out / groups, *k) when transposed —
/// and bias (out), both ~ U(±1/√fan_in) by kaiming_uniform(a = √5).
class ConvImplBase : public Module {
 public:
  /// Redraws weight and bias with PyTorch's default initialisation.
  void reset_parameters();
  std::string extra_repr() const override;

  int64_t in_channels, out_channels;
  std::vector<int64_t> kernel_size, stride, padding, dilation, output_padding;
  std::string padding_string;  // "same" / "valid" when padding was given as a string, else ""
  int64_t groups;
  std::string padding_mode;
  Tensor weight, bias;  // bias undefined when options.bias is false

 protected:
  ConvImplBase(const char* op, int64_t dims, bool transposed, int64_t in_channels,
               int64_t out_channels, const functional::IntOrList& kernel_size,
               const functional::IntOrList& stride, const functional::ConvPadding& padding,
               const functional::IntOrList& output_padding, const functional::IntOrList& dilation,
               int64_t groups, bool bias, std::string padding_mode);
  /// The input padded by padding_mode (non-"zeros" modes pad explicitly, then convolve with 0).
  Tensor pad_input(const Tensor& input) const;
  /// The functional options for this layer's convolution.
  functional::ConvFuncOptions func_options() const;

 private:
  std::vector<int64_t> reversed_padding_twice_;  // F::pad's argument for the non-zeros modes
};

/// input (N, C_in, L) or (C_in, L) -> (N, C_out, L_out).
class Conv1dImpl : public ConvImplBase {
 public:
  Conv1dImpl(int64_t in_channels, int64_t out_channels, functional::IntOrList kernel_size,
             ConvOptions options = {});
  Tensor forward(const Tensor& input);
};
class Conv1d : public ModuleHolder<Conv1dImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  Conv1d(int64_t in_channels, int64_t out_channels, functional::IntOrList kernel_size,
         ConvOptions options = {})
      : ModuleHolder(std::make_shared<Conv1dImpl>(in_channels, out_channels,
                                                  std::move(kernel_size), std::move(options))) {}
};

/// input (N, C_in, H, W) or (C_in, H, W) -> (N, C_out, H_out, W_out).
class Conv2dImpl : public ConvImplBase {
 public:
  Conv2dImpl(int64_t in_channels, int64_t out_channels, functional::IntOrList kernel_size,
             ConvOptions options = {});
  Tensor forward(const Tensor& input);
};
class Conv2d : public ModuleHolder<Conv2dImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  Conv2d(int64_t in_channels, int64_t out_channels, functional::IntOrList kernel_size,
         ConvOptions options = {})
      : ModuleHolder(std::make_shared<Conv2dImpl>(in_channels, out_channels,
                                                  std::move(kernel_size), std::move(options))) {}
};

/// input (N, C_in, D, H, W) or (C_in, D, H, W) -> (N, C_out, D_out, H_out, W_out).
class Conv3dImpl : public ConvImplBase {
 public:
  Conv3dImpl(int64_t in_channels, int64_t out_channels, functional::IntOrList kernel_size,
             ConvOptions options = {});
  Tensor forward(const Tensor& input);
};
class Conv3d : public ModuleHolder<Conv3dImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  Conv3d(int64_t in_channels, int64_t out_channels, functional::IntOrList kernel_size,
         ConvOptions options = {})
      : ModuleHolder(std::make_shared<Conv3dImpl>(in_channels, out_channels,
                                                  std::move(kernel_size), std::move(options))) {}
};

/// The gradient of Conv2d wrt its input: (N, C_in, H, W) -> (N, C_out, H_out, W_out) with
/// H_out = (H - 1) stride - 2 padding + dilation (k - 1) + output_padding + 1.
class ConvTranspose2dImpl : public ConvImplBase {
 public:
  ConvTranspose2dImpl(int64_t in_channels, int64_t out_channels,
                      functional::IntOrList kernel_size, ConvTransposeOptions options = {});
  /// output_size ({H, W}, optionally with leading N, C) picks output_padding so that the
  /// output has that size, as PyTorch's forward(input, output_size).
  Tensor forward(const Tensor& input, std::vector<int64_t> output_size = {});
};
class ConvTranspose2d : public ModuleHolder<ConvTranspose2dImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  ConvTranspose2d(int64_t in_channels, int64_t out_channels, functional::IntOrList kernel_size,
                  ConvTransposeOptions options = {})
      : ModuleHolder(std::make_shared<ConvTranspose2dImpl>(
            in_channels, out_channels, std::move(kernel_size), std::move(options))) {}
};

}  // namespace ember::nn
