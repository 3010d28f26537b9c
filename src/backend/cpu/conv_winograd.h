// Winograd F(2x2, 3x3) convolution for float32, 3x3 kernels, stride 1, dilation 1, one group:
// conv.cpp's forward calls it for the shapes where it beats the direct kernels, and so does
// grad_input, which conv.cpp turns into a forward convolution (adjoint_as_forward).
// Note [Winograd convolution] in conv_winograd.cpp.
#pragma once

#include <cstdint>

#include "backend/cpu/level.h"

namespace EMBER_CPU_NS {

/// A 3x3, stride-1, dilation-1, ungrouped convolution: input (N, C, H, W), weight (O, C, 3, 3),
/// output (N, O, Ho, Wo) with padding (ph, pw) (Ho, Wo as the caller sized the output).
struct WinogradShape {
  int64_t N, C, H, W, O, Ho, Wo, ph, pw;
};

/// True where F(2x2, 3x3) measurably beats the direct kernels (figures in conv_winograd.cpp).
/// Depends on one image's shape only, never on the batch size, which float16/bfloat16 chunks
/// of images (conv_reduced.cpp) make depend on the thread count: a shape always takes one path,
/// and threads change no bits. Inline so that tests can ask which shapes take it.
inline bool winograd_wins(const WinogradShape& s) {
  const int64_t tiles = ((s.Ho + 1) / 2) * ((s.Wo + 1) / 2);  // 2x2 output tiles per image
  return s.C >= 16 && s.O >= 8 && tiles >= 16;
}

/// out = conv(in, w) + bias (bias may be null); every pointer contiguous.
void conv_winograd(const WinogradShape& s, const float* in, const float* w, const float* bias,
                   float* out);

}  // namespace EMBER_CPU_NS
