// bfloat16 convolutions whose windows read few values (a network's first layer: conv 1 -> 32,
// 3x3, reads 9), computed straight from and into NCHW (Note [Few-taps convolution] in
// conv_few_taps.cpp).
#pragma once

#include "backend/cpu/conv_geometry.h"
#include "backend/cpu/level.h"
#include "ember/half.h"

namespace EMBER_CPU_NS {

/// Whether a bfloat16 convolution of geometry g takes the kernels below at this CPU level: stride
/// 1, at most 32 taps (Cg * kh * kw), fewer than 16 input channels per group (oneDNN's channel
/// block), a non-empty output; AVX-512 levels only (elsewhere: false).
bool few_taps_conv(const Geometry& g);

/// out (N, O, Ho, Wo) = conv(in, w) + bias (bias may be null): float32 sums, one rounding.
void few_taps_forward(const Geometry& g, const BFloat16* in, const BFloat16* w,
                      const BFloat16* bias, BFloat16* out);

/// grad_weight (O, Cg, kh, kw) = grad (N, O, Ho, Wo) correlated with in over the batch, and,
/// where grad_bias is not null, grad_bias (O) = grad summed over (N, Ho, Wo): float32 sums, one
/// rounding each.
void few_taps_weight_grad(const Geometry& g, const BFloat16* grad, const BFloat16* in,
                          BFloat16* grad_weight, BFloat16* grad_bias);

}  // namespace EMBER_CPU_NS
