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
};

}  // namespace ember::backend
