// bfloat16 convolutions through oneDNN's convolution primitives (Note [oneDNN bfloat16
// convolution] in conv_onednn.cpp): forward, grad_input and grad_weight on contiguous NCHW
// bfloat16 operands, where the CPU has bfloat16 dot products.
#pragma once

#include <cstdint>

#include "backend/cpu/blas.h"
#include "ember/half.h"

namespace ember::cpu {

/// A convolution's sizes, as the CPU kernels' Geometry (conv_geometry.h) has them: input
/// (N, C, H, W), weight (O, C / G, kh, kw), output (N, O, Ho, Wo).
struct OnednnConvShape {
  int64_t N, C, H, W, O, kh, kw, Ho, Wo, G;
  int64_t sh, sw, ph, pw, dh, dw;
};

enum class OnednnConvPass { kForward, kGradInput, kGradWeight };

/// Whether `pass` of a convolution with Cg input and Og output channels per group runs oneDNN's
/// bfloat16 convolution primitive, given the process's bfloat16 GEMM path (oneDNN there means
/// bfloat16 dot products in hardware and libdnnl loaded). Forward and grad_input need a channel
/// block (16) on both sides: with fewer (the reference CNN's conv 1 -> 32) the reorders between
/// NCHW and oneDNN's channel-blocked layouts cost more than the primitive saves. grad_weight
/// needs one on the output side only: its input is read as it is where it has few channels.
bool choose_onednn_conv(Dtype dtype, ReducedGemmPath path, OnednnConvPass pass, int64_t Cg,
                        int64_t Og);
/// The same for this process.
bool onednn_conv(OnednnConvPass pass, int64_t Cg, int64_t Og);

/// out = conv(in, w) + bias (bias may be null), all bfloat16; float32 accumulation, one rounding.
/// False (nothing written) where oneDNN has no bfloat16 JIT kernel for the shape: the caller
/// takes its own path. Call only where onednn_conv(pass, Cg, Og) is true.
bool onednn_conv2d(const OnednnConvShape& s, const BFloat16* in, const BFloat16* w,
                   const BFloat16* bias, BFloat16* out);
/// grad_in (N, C, H, W) = conv2d's adjoint in its input applied to grad (N, O, Ho, Wo).
bool onednn_conv2d_grad_input(const OnednnConvShape& s, const BFloat16* grad, const BFloat16* w,
                              BFloat16* grad_in);
/// grad_w (O, C / G, kh, kw) = conv2d's gradient in its weight: summed over the batch in
/// float32, rounded once.
bool onednn_conv2d_grad_weight(const OnednnConvShape& s, const BFloat16* grad, const BFloat16* in,
                               BFloat16* grad_w);
/// conv2d's backward in one call: grad_w as above, grad_b (O, where not null) = grad summed over
/// (N, Ho, Wo) in the same pass (float32, rounded once), and grad_in (where not null) as
/// onednn_conv2d_grad_input, with grad reordered into the primitives' layout once for both.
/// False (nothing written) where a pass asked for has no bfloat16 JIT kernel. Call only where
/// onednn_conv chooses kGradWeight, and kGradInput too if grad_in is asked for.
bool onednn_conv2d_backward(const OnednnConvShape& s, const BFloat16* grad, const BFloat16* in,
                            const BFloat16* w, BFloat16* grad_in, BFloat16* grad_w,
                            BFloat16* grad_b);

}  // namespace ember::cpu
