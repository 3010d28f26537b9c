// CPU convolution kernels on normalised operands: contiguous NCHW tensors of one floating dtype,
// sizes already checked, the output allocated by the caller. conv1d is conv2d with H == 1.
// See Note [Convolution algorithms] in conv.cpp for how the kernel is chosen; float16/bfloat16
// go through the float32 kernels chunk by chunk (Note [Reduced-precision convolution]), or, for
// bfloat16 on bfloat16 hardware, through oneDNN's convolution primitives (Note [oneDNN bfloat16
// convolution] in conv_onednn.cpp) or its bfloat16 GEMM (Note [bfloat16 dot-product
// convolution]).
#pragma once

#include <cstdint>

#include "backend/conv_kernels.h"
#include "backend/cpu/conv_geometry.h"
#include "backend/cpu/level.h"
#include "ember/tensor.h"

namespace EMBER_CPU_NS {

using backend::Conv2dParams;

/// The problem's sizes: input and weight are the conv's operands, out its output (Ho, Wo).
Geometry conv_geometry(const Tensor& input, const Tensor& weight, const Tensor& out,
                       const Conv2dParams& p);

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

/// conv2d's gradients in one call (backend::ConvBackwardCall): bfloat16's few-taps and oneDNN
/// paths share their work; every other call computes them with the kernels above.
void conv2d_backward(const backend::ConvBackwardCall& call);

// ── float16/bfloat16 (conv_reduced.cpp), called by the kernels above ──────────────────────
bool is_reduced_conv(const Tensor& t);
void conv2d_reduced(const Tensor& input, const Tensor& weight, const Tensor& bias,
                    const Tensor& out, const Conv2dParams& p);
void conv2d_adjoint_reduced(const Tensor& grad, const Tensor& weight, const Tensor& bias,
                            const Tensor& out, const Conv2dParams& p);
void conv2d_weight_grad_reduced(const Tensor& grad, const Tensor& input,
                                const Tensor& grad_weight, const Conv2dParams& p);
/// conv2d_backward's shared paths for bfloat16: grad_weight with grad_bias in one pass (the
/// few-taps kernel, oneDNN's weights primitive) and, on oneDNN, grad_input from the same
/// reordered grad (grad_input otherwise through conv2d_adjoint). False, nothing written, where
/// neither applies (float16, grad_weight not asked for, no such kernel for the shape).
bool conv2d_backward_reduced(const backend::ConvBackwardCall& call);

/// True when the float32 kernels give runs of whole images to threads (the rest of the time
/// they thread inside each image): the reduced-precision driver splits the batch the same way.
bool split_images(int64_t N);

}  // namespace EMBER_CPU_NS
