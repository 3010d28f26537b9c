// torch.nn.functional's spatial ops: convolution (conv1d/2d/3d, conv_transpose1d/2d), pooling
// (max, avg, adaptive), interpolate and pad, with PyTorch's keyword options as structs, plus the
// backward kernels that autograd calls (grad_output -> grads of the inputs).
//   F::conv2d(x, w, {.bias = b, .stride = 1, .padding = "same"});
//   F::max_pool2d(x, 2, {.stride = 2});  F::interpolate(x, {.scale_factor = 2, .mode = "bilinear"});
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/tensor.h"

namespace ember::nn::functional {

/// A size per spatial dim given as one int for all dims (`2`) or a list (`{2, 3}`), like
/// PyTorch's int-or-tuple arguments. Empty (`{}`) means "the op's default".
class IntOrList {
 public:
  IntOrList() = default;
  IntOrList(int v) : values_{v} {}                                      // NOLINT
  IntOrList(int64_t v) : values_{v} {}                                  // NOLINT
  IntOrList(std::initializer_list<int64_t> v) : values_(v) {}
  IntOrList(std::vector<int64_t> v) : values_(std::move(v)) {}          // NOLINT
  IntOrList(IntArrayRef v) : values_(v.vec()) {}                        // NOLINT

  bool empty() const { return values_.empty(); }
  const std::vector<int64_t>& values() const { return values_; }

 private:
  std::vector<int64_t> values_;
};

/// Convolution padding: an int or list as IntOrList, or the strings "valid" (no padding) and
/// "same" (output size == input size; stride 1 only).
class ConvPadding : public IntOrList {
 public:
  ConvPadding() = default;
  ConvPadding(int v) : IntOrList(v) {}                                   // NOLINT
  ConvPadding(int64_t v) : IntOrList(v) {}                               // NOLINT
  ConvPadding(std::initializer_list<int64_t> v) : IntOrList(v) {}
  ConvPadding(std::vector<int64_t> v) : IntOrList(std::move(v)) {}       // NOLINT
  ConvPadding(const char* mode) : mode_(mode) {}                         // NOLINT
  ConvPadding(std::string mode) : mode_(std::move(mode)) {}              // NOLINT

  /// "" for explicit sizes, else the string given.
  const std::string& mode() const { return mode_; }

 private:
  std::string mode_;
};

/// A float per spatial dim, one for all (`2.0`) or a list (`{2, 1.5}`); empty means unset.
class DoubleOrList {
 public:
  DoubleOrList() = default;
  DoubleOrList(double v) : values_{v} {}                                 // NOLINT
  DoubleOrList(std::initializer_list<double> v) : values_(v) {}
  DoubleOrList(std::vector<double> v) : values_(std::move(v)) {}         // NOLINT

  bool empty() const { return values_.empty(); }
  const std::vector<double>& values() const { return values_; }

 private:
  std::vector<double> values_;
};

// ── convolution ───────────────────────────────────────────────────────────
/// conv1d / conv2d keywords, in PyTorch's order.
struct ConvFuncOptions {
  Tensor bias = {};          // (C_out) or undefined
  IntOrList stride = 1;
  ConvPadding padding = 0;
  IntOrList dilation = 1;
  int64_t groups = 1;
};

/// conv_transpose1d / conv_transpose2d keywords, in PyTorch's order.
struct ConvTransposeFuncOptions {
  Tensor bias = {};          // (C_out) or undefined
  IntOrList stride = 1;
  IntOrList padding = 0;
  IntOrList output_padding = 0;
  int64_t groups = 1;
  IntOrList dilation = 1;
};

/// input (N, C_in, L) or (C_in, L), weight (C_out, C_in / groups, k) -> (N, C_out, L_out).
Tensor conv1d(const Tensor& input, const Tensor& weight, const ConvFuncOptions& options = {});
/// input (N, C_in, H, W) or (C_in, H, W), weight (C_out, C_in / groups, kH, kW)
/// -> (N, C_out, H_out, W_out). float32/float64; float16/bfloat16 are computed in float.
Tensor conv2d(const Tensor& input, const Tensor& weight, const ConvFuncOptions& options = {});
/// input (N, C_in, D, H, W) or (C_in, D, H, W), weight (C_out, C_in / groups, kD, kH, kW):
/// kD conv2d calls over the depth taps (src/ops/conv3d.cpp); the same options, per 3 dims.
Tensor conv3d(const Tensor& input, const Tensor& weight, const ConvFuncOptions& options = {});
/// input (N, C_in, L), weight (C_in, C_out / groups, k) -> (N, C_out, L_out).
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                        const ConvTransposeFuncOptions& options = {});
/// input (N, C_in, H, W), weight (C_in, C_out / groups, kH, kW) -> (N, C_out, H_out, W_out).
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                        const ConvTransposeFuncOptions& options = {});

// ── pooling ───────────────────────────────────────────────────────────────
/// max_pool keywords; an empty stride means stride = kernel_size.
struct MaxPoolFuncOptions {
  IntOrList stride = {};
  IntOrList padding = 0;
  IntOrList dilation = 1;
  bool ceil_mode = false;
};

/// avg_pool keywords; an empty stride means stride = kernel_size.
struct AvgPoolFuncOptions {
  IntOrList stride = {};
  IntOrList padding = 0;
  bool ceil_mode = false;
  bool count_include_pad = true;
  std::optional<int64_t> divisor_override = {};
};

/// (N, C, L) or (C, L) -> (N, C, L_out).
Tensor max_pool1d(const Tensor& input, IntOrList kernel_size, const MaxPoolFuncOptions& options = {});
/// (N, C, H, W) or (C, H, W) -> (N, C, H_out, W_out).
Tensor max_pool2d(const Tensor& input, IntOrList kernel_size, const MaxPoolFuncOptions& options = {});
/// Values and int64 indices of the maxima, flat within each input plane (return_indices=True).
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, IntOrList kernel_size,
                                                   const MaxPoolFuncOptions& options = {});
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntOrList kernel_size,
                                                   const MaxPoolFuncOptions& options = {});
Tensor avg_pool1d(const Tensor& input, IntOrList kernel_size, const AvgPoolFuncOptions& options = {});
Tensor avg_pool2d(const Tensor& input, IntOrList kernel_size, const AvgPoolFuncOptions& options = {});
/// Output (N, C, *output_size); window i covers [floor(i*in/out), ceil((i+1)*in/out)).
Tensor adaptive_avg_pool1d(const Tensor& input, IntOrList output_size);
Tensor adaptive_avg_pool2d(const Tensor& input, IntOrList output_size);
Tensor adaptive_max_pool1d(const Tensor& input, IntOrList output_size);
Tensor adaptive_max_pool2d(const Tensor& input, IntOrList output_size);
std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                            IntOrList output_size);
std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                            IntOrList output_size);

// ── resampling and padding ────────────────────────────────────────────────
/// interpolate keywords: exactly one of size and scale_factor. Modes "nearest", "nearest-exact"
/// (3-D and 4-D input), "linear" (3-D), "bilinear" (4-D); align_corners only for the linear ones.
struct InterpolateFuncOptions {
  IntOrList size = {};
  DoubleOrList scale_factor = {};
  std::string mode = "nearest";
  std::optional<bool> align_corners = {};
  std::optional<bool> recompute_scale_factor = {};
};

/// Resamples the spatial dims of (N, C, L) or (N, C, H, W), with PyTorch's index arithmetic.
Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options);

/// pad keywords: mode "constant" (value, default 0), "reflect", "replicate" or "circular".
struct PadFuncOptions {
  std::string mode = "constant";
  std::optional<double> value = {};
};

/// Pads the last dims: pad = {left, right} of the last dim, then of the one before, ...;
/// negative amounts crop.
Tensor pad(const Tensor& input, IntArrayRef pad, const PadFuncOptions& options = {});

// ── backward kernels (what autograd calls; not differentiable themselves) ────
/// Gradients of conv2d wrt (input, weight, bias); grad_bias is undefined unless options.bias is
/// defined. Accepts the same (un)batched shapes and options as conv2d.
std::tuple<Tensor, Tensor, Tensor> conv2d_backward(const Tensor& grad_output, const Tensor& input,
                                                   const Tensor& weight,
                                                   const ConvFuncOptions& options = {});
std::tuple<Tensor, Tensor, Tensor> conv1d_backward(const Tensor& grad_output, const Tensor& input,
                                                   const Tensor& weight,
                                                   const ConvFuncOptions& options = {});
/// Gradients of conv_transpose2d wrt (input, weight, bias).
std::tuple<Tensor, Tensor, Tensor> conv_transpose2d_backward(
    const Tensor& grad_output, const Tensor& input, const Tensor& weight,
    const ConvTransposeFuncOptions& options = {});
/// grad_input of max_pool2d or adaptive_max_pool2d: grad_output (N, C, Ho, Wo) scattered to the
/// indices the forward returned, summed where windows overlap. (The 1-D pools are the 2-D ones
/// on x.unsqueeze(-2), so their gradients are these through the views.)
Tensor max_pool2d_backward(const Tensor& grad_output, const Tensor& input, const Tensor& indices);
Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& input, IntOrList kernel_size,
                           const AvgPoolFuncOptions& options = {});
Tensor adaptive_avg_pool2d_backward(const Tensor& grad_output, const Tensor& input);
/// grad_input of interpolate for an input of sizes input_sizes, with the forward's options.
Tensor interpolate_backward(const Tensor& grad_output, IntArrayRef input_sizes,
                            const InterpolateFuncOptions& options);
/// grad_input of pad for an input of sizes input_sizes (reflected/replicated elements sum up).
Tensor pad_backward(const Tensor& grad_output, IntArrayRef input_sizes, IntArrayRef pad,
                    const PadFuncOptions& options = {});

}  // namespace ember::nn::functional
