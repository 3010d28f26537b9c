// The convolution family's kernels (src/ops/conv.cpp): the front end checks the arguments,
// normalises every conv/conv_transpose (1-D as height-1 2-D, batched, contiguous NCHW, in the
// operands' floating dtype) and allocates the outputs on the operands' device; a kernel computes.
#pragma once

#include <cstdint>

#include "ember/tensor.h"

namespace ember::backend {

/// A 2-D convolution's geometry, filled by the front end.
struct Conv2dParams {
  int64_t stride[2] = {1, 1};   // (H, W)
  int64_t padding[2] = {0, 0};  // the left padding; the right one is implied by the output size
  int64_t dilation[2] = {1, 1};
  int64_t groups = 1;
};

/// conv2d's backward: the gradients asked for (a tensor left undefined is not wanted, as
/// PyTorch's output_mask) from grad (N, O, Ho, Wo), input (N, C, H, W) and weight: grad_input
/// (N, C, H, W), grad_weight (O, C / g, kH, kW) and grad_bias (O), grad summed over (N, Ho, Wo).
struct ConvBackwardCall {
  const Tensor& grad;
  const Tensor& input;
  const Tensor& weight;
  const Tensor& grad_input;
  const Tensor& grad_weight;
  const Tensor& grad_bias;
  const Conv2dParams& p;
};

struct ConvKernels {
  /// out (N, O, Ho, Wo) = conv(input (N, C, H, W), weight (O, C / g, kH, kW)) + bias (O);
  /// bias may be undefined.
  void (*conv2d)(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& out,
                 const Conv2dParams& p) = nullptr;
  /// conv2d's adjoint in its input (conv_transpose2d, conv2d's grad_input): out (N, C, H, W)
  /// from grad (N, O, Ho, Wo) and weight, plus bias (C) when defined.
  void (*conv2d_adjoint)(const Tensor& grad, const Tensor& weight, const Tensor& bias,
                         const Tensor& out, const Conv2dParams& p) = nullptr;
  /// conv2d's gradient in its weight: grad_weight (O, C / g, kH, kW) from grad (N, O, Ho, Wo)
  /// and input (N, C, H, W).
  void (*conv2d_weight_grad)(const Tensor& grad, const Tensor& input, const Tensor& grad_weight,
                             const Conv2dParams& p) = nullptr;
  /// conv2d's gradients in one call, so that a backend can share their work (grad's layout
  /// between grad_input and grad_weight, one pass over grad for grad_weight and grad_bias);
  /// conv2d_backward_in_parts computes them with the entries above and the backend's sum.
  void (*conv2d_backward)(const ConvBackwardCall& call) = nullptr;
};

/// ConvBackwardCall's gradients from grad's backend's conv2d_adjoint, conv2d_weight_grad and
/// reduce.sum: a backend's conv2d_backward where it shares nothing.
void conv2d_backward_in_parts(const ConvBackwardCall& call);

}  // namespace ember::backend
