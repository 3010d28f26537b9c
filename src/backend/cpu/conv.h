// CPU convolution kernels on normalised operands: contiguous NCHW float32/float64 tensors of one
// dtype, sizes already checked, the output allocated by the caller. conv1d is conv2d with H == 1.
// See Note [Convolution algorithms] in conv.cpp for how the kernel is chosen.
#pragma once

#include <cstdint>

#include "backend/conv_kernels.h"
#include "backend/cpu/level.h"
#include "ember/tensor.h"

namespace EMBER_CPU_NS {

using backend::Conv2dParams;

/// out (N, O, Ho, Wo) = conv(input (N, C, H, W), weight (O, C / g, kH, kW)) + bias (O).
/// bias may be undefined.
void conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& out,
            const Conv2dParams& p);

/// The adjoint of conv2d in its input: out (N, C, H, W) = sum over the windows that read each
/// input element of grad (N, O, Ho, Wo) times weight (O, C / g, kH, kW), plus bias (C) when
/// defined. This is conv_transpose2d, and conv2d's grad_input; out's H, W pick the output size.
void conv2d_adjoint(const Tensor& grad, const Tensor& weight, const Tensor& bias, const Tensor& out,
                    const Conv2dParams& p);

/// conv2d's gradient in its weight: grad_weight (O, C / g, kH, kW) =
/// sum over n of grad (N, O, Ho, Wo) correlated with input (N, C, H, W).
void conv2d_weight_grad(const Tensor& grad, const Tensor& input, const Tensor& grad_weight,
                        const Conv2dParams& p);

}  // namespace EMBER_CPU_NS
