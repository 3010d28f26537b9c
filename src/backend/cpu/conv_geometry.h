// What the convolution kernels of one CPU level share (conv.cpp, conv_flat.cpp): the problem's
// geometry and the vector broadcast their inner loops use.
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
// A broadcast that GCC turns into one vbroadcastss/sd from memory (x + 0 would cost an add).
template <class T>
inline Vec<T> splat(T x) {
  return Vec<T>(x - typename Vec<T>::V{});
}

}  // namespace EMBER_CPU_NS
