// What the convolution kernels of one CPU level share (conv.cpp, conv_flat.cpp,
// conv_reduced.cpp): the problem's geometry, the adjoint convolution's, and the vector broadcast
// their inner loops use.
#pragma once

#include <cstdint>

#include "backend/cpu/level.h"
#include "backend/cpu/vec.h"

namespace EMBER_CPU_NS {

struct Geometry {
  int64_t N, C, H, W;  // input (N, C, H, W)
  int64_t O, kh, kw;   // weight (O, C / G, kh, kw)
  int64_t Ho, Wo;      // output (N, O, Ho, Wo)
  int64_t G, Cg, Og;   // groups; channels per group in and out
  int64_t sh, sw, ph, pw, dh, dw;
  int64_t K() const { return Cg * kh * kw; }
  bool pointwise() const { return kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0; }
};

// With stride 1 the adjoint of a convolution (its grad_input) is itself a convolution: of grad,
// padded by d*(k-1) - p, with the weights flipped in space and transposed in channels,
// w'[c][o][i][j] = w[o][c][-i][-j] within each group. The geometry of that forward convolution,
// or false where it does not apply (stride > 1, padding beyond the kernel's extent).
inline bool adjoint_geometry(const Geometry& g, Geometry& f) {
  const int64_t eh = (g.kh - 1) * g.dh, ew = (g.kw - 1) * g.dw;  // kernel extents - 1
  if (g.sh != 1 || g.sw != 1 || g.ph > eh || g.pw > ew) return false;
  f = g;
  f.C = g.O, f.H = g.Ho, f.W = g.Wo, f.O = g.C, f.Ho = g.H, f.Wo = g.W;
  f.Cg = g.Og, f.Og = g.Cg, f.ph = eh - g.ph, f.pw = ew - g.pw;
  return true;
}

// The adjoint convolution's weights wf (C, O / G, kh, kw) from w (O, C / G, kh, kw).
template <class T>
void adjoint_weights(const Geometry& g, const T* w, T* wf) {
  const int64_t kk = g.kh * g.kw;
  for (int64_t gi = 0; gi < g.G; ++gi)
    for (int64_t o = 0; o < g.Og; ++o)
      for (int64_t c = 0; c < g.Cg; ++c)
        for (int64_t t = 0; t < kk; ++t)  // t -> kk - 1 - t flips both spatial axes
          wf[((gi * g.Cg + c) * g.Og + o) * kk + kk - 1 - t] =
              w[((gi * g.Og + o) * g.Cg + c) * kk + t];
}
// A broadcast that GCC turns into one vbroadcastss/sd from memory (x + 0 would cost an add).
template <class T>
inline Vec<T> splat(T x) {
  return Vec<T>(x - typename Vec<T>::V{});
}

}  // namespace EMBER_CPU_NS
