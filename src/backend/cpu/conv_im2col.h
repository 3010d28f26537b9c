// im2col, shared by the float32/float64 kernels (conv.cpp, conv_flat.cpp's short copies) and
// the bfloat16 dot-product path (conv_reduced.cpp), which runs it on 16-bit elements.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "backend/cpu/conv_geometry.h"
#include "core/parallel.h"

namespace EMBER_CPU_NS {

// n in [B, 2B] bytes: the first and the last B, overlapping in the middle.
template <size_t B>
inline void copy_ends(char* d, const char* s, size_t n) {
  std::memcpy(d, s, B);
  std::memcpy(d + n - B, s + n - B, B);
}

// memcpy for the short runs im2col copies (one output row: often 7..56 elements), inlined
// instead of a call per row: whole 64-byte blocks, then one block ending at n.
inline void copy_short(void* dst, const void* src, size_t n) {
  auto* d = static_cast<char*>(dst);
  auto* s = static_cast<const char*>(src);
  if (n >= 64) {
    for (size_t i = 0; i + 64 <= n; i += 64) std::memcpy(d + i, s + i, 64);
    std::memcpy(d + n - 64, s + n - 64, 64);
  } else if (n >= 32) {
    copy_ends<32>(d, s, n);
  } else if (n >= 16) {
    copy_ends<16>(d, s, n);
  } else if (n >= 8) {
    copy_ends<8>(d, s, n);
  } else if (n >= 4) {
    copy_ends<4>(d, s, n);
  } else {
    for (size_t i = 0; i < n; ++i) d[i] = s[i];
  }
}

// col (K, (y1 - y0) * Wo), rows ld elements apart: row (c, i, j) holds
// input[c, y*sh - ph + i*dh, x*sw - pw + j*dw] for output rows y0 <= y < y1 (zero where that
// falls in the padding). in: (Cg, H, W). ld > (y1 - y0) * Wo lets the bfloat16 path put several
// images side by side in one col (Note [bfloat16 dot-product convolution]).
template <class T>
void im2col(const Geometry& g, const T* in, T* col, int64_t ld, int64_t y0, int64_t y1,
            bool parallel) {
  const int64_t cols = (y1 - y0) * g.Wo, kk = g.kh * g.kw;
  auto rows = [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t c = r / kk, i = r % kk / g.kw, j = r % g.kw;
      T* dst = col + r * ld;
      const int64_t off = j * g.dw - g.pw;  // input column of output column 0
      // Output columns whose input column lies inside the image: [xa, xb).
      const int64_t xa = std::clamp<int64_t>((-off + g.sw - 1) / g.sw, 0, g.Wo);
      const int64_t xb = std::clamp<int64_t>((g.W - off + g.sw - 1) / g.sw, xa, g.Wo);
      for (int64_t y = y0; y < y1; ++y, dst += g.Wo) {
        const int64_t iy = y * g.sh - g.ph + i * g.dh;
        if (iy < 0 || iy >= g.H) {
          std::fill(dst, dst + g.Wo, T(0));
          continue;
        }
        const T* src = in + (c * g.H + iy) * g.W + off;
        for (int64_t x = 0; x < xa; ++x) dst[x] = T(0);  // padding: usually one element
        if (g.sw == 1)
          copy_short(dst + xa, src + xa, sizeof(T) * size_t(xb - xa));
        else
          for (int64_t x = xa; x < xb; ++x) dst[x] = src[x * g.sw];
        for (int64_t x = xb; x < g.Wo; ++x) dst[x] = T(0);
      }
    }
  };
  if (parallel)
    parallel_for(0, g.K(), std::max<int64_t>(1, kGrainSize / std::max<int64_t>(cols, 1)), rows);
  else
    rows(0, g.K());
}

}  // namespace EMBER_CPU_NS
