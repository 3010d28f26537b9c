// Pooling kernels: max (with or without indices), average, adaptive average/max, and their
// backward kernels. Parallel over planes; each plane is a plain loop over output positions that
// mirrors PyTorch's cpu_max_pool / cpu_avg_pool / adaptive kernels, so results match exactly.
#include "backend/cpu/pool.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "backend/cpu/kernels.h"
#include "backend/cpu/vec.h"
#include "backend/cpu/vec_bf16.h"
#include "core/dispatch.h"
#include "core/parallel.h"

namespace EMBER_CPU_NS {
namespace {

struct Planes {
  int64_t P, H, W, Ho, Wo;
};

Planes planes(const Tensor& in, const Tensor& out) {
  return {in.size(0), in.size(1), in.size(2), out.size(1), out.size(2)};
}

// Runs f(p0, p1) over planes, in parallel when the planes hold enough work.
template <class F>
void for_planes(int64_t P, int64_t work_per_plane, const F& f) {
  parallel_for(0, P, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(work_per_plane, 1)), f);
}

// PyTorch's adaptive window: [floor(i * in / out), ceil((i + 1) * in / out)) computed in float.
inline int64_t start_index(int64_t i, int64_t out, int64_t in) {
  return int64_t(std::floor(float(i * in) / float(out)));
}
inline int64_t end_index(int64_t i, int64_t out, int64_t in) {
  return int64_t(std::ceil(float((i + 1) * in) / float(out)));
}

// ── max pooling ───────────────────────────────────────────────────────────
// One plane. PyTorch's rule: start at -inf with the window's first in-bounds position as the
// index; take a value when it is greater or NaN (so the last NaN wins).
template <class T, bool Indices>
void max_plane(const T* in, T* out, int64_t* idx, const Planes& s, const Pool2dParams& p) {
  using A = compute_t<T>;
  const int64_t kh = p.kernel[0], kw = p.kernel[1], sh = p.stride[0], sw = p.stride[1];
  const int64_t dh = p.dilation[0], dw = p.dilation[1];
  for (int64_t oh = 0; oh < s.Ho; ++oh) {
    int64_t ih0 = oh * sh - p.padding[0];
    const int64_t ih1 = std::min(ih0 + (kh - 1) * dh + 1, s.H);
    while (ih0 < 0) ih0 += dh;
    for (int64_t ow = 0; ow < s.Wo; ++ow) {
      int64_t iw0 = ow * sw - p.padding[1];
      const int64_t iw1 = std::min(iw0 + (kw - 1) * dw + 1, s.W);
      while (iw0 < 0) iw0 += dw;
      A best = -std::numeric_limits<A>::infinity();
      int64_t best_i = ih0 * s.W + iw0;
      for (int64_t ih = ih0; ih < ih1; ih += dh)
        for (int64_t iw = iw0; iw < iw1; iw += dw) {
          const A v = A(in[ih * s.W + iw]);
          if (v > best || std::isnan(v)) {
            best = v;
            if constexpr (Indices) best_i = ih * s.W + iw;
          }
        }
      out[oh * s.Wo + ow] = T(best);
      if constexpr (Indices) idx[oh * s.Wo + ow] = best_i;
    }
  }
}

// The common 2x2, stride 2 window without padding: two rows combined, then neighbours.
// vmax propagates NaN, as the general rule does for values.
template <class T>
void max_plane_2x2(const T* in, T* out, const Planes& s) {
  using A = compute_t<T>;
  for (int64_t oh = 0; oh < s.Ho; ++oh) {
    const T* r0 = in + 2 * oh * s.W;
    const T* r1 = r0 + s.W;
    T* o = out + oh * s.Wo;
    for (int64_t ow = 0; ow < s.Wo; ++ow) {
      const A a = vmax(A(r0[2 * ow]), A(r0[2 * ow + 1]));
      const A b = vmax(A(r1[2 * ow]), A(r1[2 * ow + 1]));
      o[ow] = T(vmax(a, b));
    }
  }
}

// The same window with indices, for training. The general loop's comparisons are a coin toss on
// real activations and mispredicted branches dominated it; here a block of outputs first gathers
// its four window values, then applies the general rule (take v when v > best or v is NaN, in
// row-major window order) as selects over the block, in SIMD registers for float and double.
template <class T>
void max_plane_2x2_indices(const T* in, T* out, int64_t* idx, const Planes& s) {
  using A = compute_t<T>;
  constexpr int64_t kBlock = 64;
  const int64_t n = s.Ho * s.Wo;
  int64_t oh = 0, ow = 0;  // the window of output o0 + k, advanced as k goes
  for (int64_t o0 = 0; o0 < n; o0 += kBlock) {
    const int64_t m = std::min(kBlock, n - o0);
    A v0[kBlock], v1[kBlock], v2[kBlock], v3[kBlock];
    int64_t first[kBlock];  // the window's top-left input
    for (int64_t k = 0; k < m; ++k) {
      const int64_t j = 2 * oh * s.W + 2 * ow;
      first[k] = j;
      v0[k] = A(in[j]), v1[k] = A(in[j + 1]), v2[k] = A(in[j + s.W]), v3[k] = A(in[j + s.W + 1]);
      if (++ow == s.Wo) ow = 0, ++oh;
    }
    int64_t k = 0;
    if constexpr (simd_type_v<A>) {
      // Which of the four won (0..3), as mask arithmetic: t is all ones where v is taken.
      using V = Vec<A>;
      using M = typename V::Mask;
      int64_t won[kBlock];
      for (; k + V::size <= m; k += V::size) {
        V best = V::load(v0 + k);
        M sel = M{} + 0;
        const auto take = [&](const A* v, int code) {
          const V x = V::load(v + k);
          const M t = gt(x, best) | isnan_mask(x);
          best = select(t, x, best);
          sel = (t & code) | (~t & sel);
        };
        take(v1, 1), take(v2, 2), take(v3, 3);
        for (int l = 0; l < V::size; ++l) {
          out[o0 + k + l] = T(best[l]);
          won[k + l] = int64_t(sel[l]);
        }
      }
      for (int64_t j = 0; j < k; ++j)
        idx[o0 + j] = first[j] + (won[j] & 1) + (won[j] >> 1) * s.W;
    }
    for (; k < m; ++k) {  // the block's tail (and half types): the general rule, scalar
      A best = v0[k];
      int64_t at = first[k];
      const A* v[3] = {v1, v2, v3};
      const int64_t offset[3] = {1, s.W, s.W + 1};
      for (int w = 0; w < 3; ++w) {
        const A x = v[w][k];
        if (x > best || x != x) best = x, at = first[k] + offset[w];
      }
      out[o0 + k] = T(best);
      idx[o0 + k] = at;
    }
  }
}

#if defined(__AVX512F__) && defined(__AVX512BW__)
// The same window with indices for bfloat16, a row of outputs at a time in AVX-512 registers (a
// CNN's forward under autocast). The gather above moves each of the four window values through
// memory with scalar loads and converts them one by one; here a row's 32 consecutive bfloat16
// inputs are one load of 16 dwords whose low halves are the windows' left values and high halves
// the right ones, so 16 outputs' windows come from two loads, then the general rule as masked
// selects, as above. Rows of fewer than 16 outputs (Wo = 14 and 7 in the CNN) are masked loads
// and stores: nothing is read or written past the row. 128x32x28x28 with indices, one thread of
// a 2-core Zen 5 (-march=native): 1.32 -> 0.47 ms (float32: 1.13 ms). float32 keeps the gather:
// the same rows in registers (two masked loads and a two-register permute per input row) took
// 1.7 ms against its 1.17 there (the portable build's avx512 level).
inline __m512 left_values(__m512i pairs) {  // the bfloat16 at the even positions, widened
  return _mm512_castsi512_ps(_mm512_slli_epi32(pairs, 16));
}
inline __m512 right_values(__m512i pairs) {  // the bfloat16 at the odd positions
  return _mm512_castsi512_ps(_mm512_and_si512(pairs, _mm512_set1_epi32(int32_t(0xffff0000u))));
}

// The left and right values of the windows of up to 16 outputs starting at row[0] (2m inputs).
inline void window_pairs(const BFloat16* row, int m, __m512& left, __m512& right) {
  const __m512i pairs = _mm512_maskz_loadu_epi32(first_lanes(m), row);
  left = left_values(pairs);
  right = right_values(pairs);
}

void max_rows_2x2_indices(const BFloat16* in, BFloat16* out, int64_t* idx, const Planes& s) {
  const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i width = _mm512_set1_epi32(int32_t(s.W));
  for (int64_t oh = 0; oh < s.Ho; ++oh) {
    const BFloat16* r0 = in + 2 * oh * s.W;
    const int64_t row_start = 2 * oh * s.W;
    for (int64_t ow = 0; ow < s.Wo; ow += 16) {
      const int m = int(std::min<int64_t>(16, s.Wo - ow));
      __m512 v[4];
      window_pairs(r0 + 2 * ow, m, v[0], v[1]);
      window_pairs(r0 + s.W + 2 * ow, m, v[2], v[3]);
      __m512 best = v[0];
      __m512i won = _mm512_setzero_si512();
      for (int w = 1; w < 4; ++w) {
        const __mmask16 take = _mm512_cmp_ps_mask(v[w], best, _CMP_GT_OQ) |
                               _mm512_cmp_ps_mask(v[w], v[w], _CMP_UNORD_Q);
        best = _mm512_mask_mov_ps(best, take, v[w]);
        won = _mm512_mask_mov_epi32(won, take, _mm512_set1_epi32(w));
      }
      narrow_bf16_lanes(first_lanes(m), best, out + oh * s.Wo + ow);
      // The winner's place in the plane: row_start + 2 (ow + lane) + (won & 1) + (won >> 1) W.
      const __m512i col = _mm512_add_epi32(
          _mm512_add_epi32(
              _mm512_slli_epi32(_mm512_add_epi32(lane, _mm512_set1_epi32(int32_t(ow))), 1),
              _mm512_and_si512(won, _mm512_set1_epi32(1))),
          _mm512_mullo_epi32(_mm512_srli_epi32(won, 1), width));
      const __m512i base = _mm512_set1_epi64(row_start);
      int64_t* dst = idx + oh * s.Wo + ow;
      _mm512_mask_storeu_epi64(
          dst, __mmask8(m >= 8 ? 0xff : (1u << m) - 1),
          _mm512_add_epi64(base, _mm512_cvtepi32_epi64(_mm512_castsi512_si256(col))));
      if (m > 8)
        _mm512_mask_storeu_epi64(
            dst + 8, __mmask8((1u << (m - 8)) - 1),
            _mm512_add_epi64(base, _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(col, 1))));
    }
  }
}
#endif

// One plane of the 2x2 window with indices: bfloat16 in AVX-512 rows where the code has them
// (and the plane's places fit their int32 lanes), else through the gather.
template <class T>
void max_2x2_indices(const T* in, T* out, int64_t* idx, const Planes& s) {
#if defined(__AVX512F__) && defined(__AVX512BW__)
  if constexpr (std::is_same_v<T, BFloat16>) {
    if (s.H * s.W < (int64_t(1) << 30)) return max_rows_2x2_indices(in, out, idx, s);
  }
#endif
  max_plane_2x2_indices<T>(in, out, idx, s);
}

template <class T, bool Indices>
void adaptive_max_plane(const T* in, T* out, int64_t* idx, const Planes& s) {
  using A = compute_t<T>;
  for (int64_t oh = 0; oh < s.Ho; ++oh) {
    const int64_t ih0 = start_index(oh, s.Ho, s.H), ih1 = end_index(oh, s.Ho, s.H);
    for (int64_t ow = 0; ow < s.Wo; ++ow) {
      const int64_t iw0 = start_index(ow, s.Wo, s.W), iw1 = end_index(ow, s.Wo, s.W);
      A best = -std::numeric_limits<A>::infinity();
      int64_t best_i = ih0 * s.W + iw0;
      for (int64_t ih = ih0; ih < ih1; ++ih)
        for (int64_t iw = iw0; iw < iw1; ++iw) {
          const A v = A(in[ih * s.W + iw]);
          if (v > best || std::isnan(v)) {
            best = v;
            if constexpr (Indices) best_i = ih * s.W + iw;
          }
        }
      out[oh * s.Wo + ow] = T(best);
      if constexpr (Indices) idx[oh * s.Wo + ow] = best_i;
    }
  }
}

// ── average pooling ───────────────────────────────────────────────────────
// The window [ih0, ih1) x [iw0, iw1) clipped to the padded input gives count_include_pad's
// divisor; clipped to the input, the other one.
struct AvgWindow {
  int64_t ih0, ih1, iw0, iw1, divisor;
};

inline AvgWindow avg_window(int64_t oh, int64_t ow, const Planes& s, const Pool2dParams& p,
                            bool count_include_pad, int64_t divisor) {
  int64_t ih0 = oh * p.stride[0] - p.padding[0], iw0 = ow * p.stride[1] - p.padding[1];
  int64_t ih1 = std::min(ih0 + p.kernel[0], s.H + p.padding[0]);
  int64_t iw1 = std::min(iw0 + p.kernel[1], s.W + p.padding[1]);
  const int64_t pool_size = (ih1 - ih0) * (iw1 - iw0);
  ih0 = std::max<int64_t>(ih0, 0), iw0 = std::max<int64_t>(iw0, 0);
  ih1 = std::min(ih1, s.H), iw1 = std::min(iw1, s.W);
  const int64_t d = divisor > 0         ? divisor
                    : count_include_pad ? pool_size
                                        : (ih1 - ih0) * (iw1 - iw0);
  return {ih0, ih1, iw0, iw1, d};
}

template <class T>
void avg_plane(const T* in, T* out, const Planes& s, const Pool2dParams& p, bool cip,
               int64_t divisor) {
  using A = compute_t<T>;
  for (int64_t oh = 0; oh < s.Ho; ++oh)
    for (int64_t ow = 0; ow < s.Wo; ++ow) {
      const AvgWindow w = avg_window(oh, ow, s, p, cip, divisor);
      if (w.ih0 >= w.ih1 || w.iw0 >= w.iw1) {  // a window entirely in the padding
        out[oh * s.Wo + ow] = T(0);
        continue;
      }
      A sum = 0;
      for (int64_t ih = w.ih0; ih < w.ih1; ++ih)
        for (int64_t iw = w.iw0; iw < w.iw1; ++iw) sum += A(in[ih * s.W + iw]);
      out[oh * s.Wo + ow] = T(sum / A(w.divisor));
    }
}

template <class T>
void adaptive_avg_plane(const T* in, T* out, const Planes& s) {
  using A = compute_t<T>;
  for (int64_t oh = 0; oh < s.Ho; ++oh) {
    const int64_t ih0 = start_index(oh, s.Ho, s.H), ih1 = end_index(oh, s.Ho, s.H);
    for (int64_t ow = 0; ow < s.Wo; ++ow) {
      const int64_t iw0 = start_index(ow, s.Wo, s.W), iw1 = end_index(ow, s.Wo, s.W);
      A sum = 0;
      for (int64_t ih = ih0; ih < ih1; ++ih)
        for (int64_t iw = iw0; iw < iw1; ++iw) sum += A(in[ih * s.W + iw]);
      // Divided by each side in turn, as PyTorch does (the rounding differs from one division).
      out[oh * s.Wo + ow] = T(sum / A(ih1 - ih0) / A(iw1 - iw0));
    }
  }
}

template <class T>
const T* cptr(const Tensor& t) {
  return static_cast<const T*>(t.data_ptr());
}
template <class T>
T* mptr(const Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}

// ── max pooling's backward ────────────────────────────────────────────────
#if defined(__AVX512F__) && defined(__AVX512BW__)
// max_pool2d's backward for bfloat16 where the planes are tiled by 2x2 windows (H = 2 Ho,
// W = 2 Wo: a CNN's pool(2)), 16 windows at a time in AVX-512 registers: each window's gradient
// goes to the one of its four places its index names and zeros to the other three, so grad_input
// is written once, in full rows, instead of cleared and then written element by element through
// a scalar loop (figures at backward_2x2_rows). Each place is the +0 + g the general loop below
// writes (g's bits but -0 -> +0, NaN -> 0x7FC0). False, with part of the plane written, where
// an index is not in its own window (indices of another pool, or any a caller passed): the
// general loop then redoes the plane.

// Two runs of up to 8 windows (lanes 0-7 and 8-15): their indices, the plane place of each run's
// first window's top-left (the run's windows 2 apart) and which lanes hold a window.
struct WindowRun {
  const int64_t* index;
  int64_t window_at;
  __mmask8 lanes;
};

// The 16 windows' top and bottom input rows: per window one dword, the left place in its low
// half and the right one in its high half. False where an index is not in its window.
bool window_rows(const WindowRun& lo, const WindowRun& hi, __m512i bits, const Planes& s,
                 __m512i& top, __m512i& bottom) {
  const __m512i lane_place = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);  // 2 x (window's lane)
  // Each index less its window's top-left place: 0, 1, W or W + 1 where it is in the window.
  __mmask16 at[4];  // left, right, lower left, lower right: a bit per window
  const int64_t offsets[4] = {0, 1, s.W, s.W + 1};
  for (int half = 0; half < 2; ++half) {
    const WindowRun& r = half ? hi : lo;
    const __m512i rel =
        _mm512_sub_epi64(_mm512_maskz_loadu_epi64(r.lanes, r.index),
                         _mm512_add_epi64(_mm512_set1_epi64(r.window_at), lane_place));
    for (int k = 0; k < 4; ++k) {
      const unsigned bit = _mm512_cmpeq_epi64_mask(rel, _mm512_set1_epi64(offsets[k]));
      at[k] = __mmask16(half ? at[k] | (bit << 8) : bit);
    }
  }
  const __mmask16 lanes = __mmask16(lo.lanes | (unsigned(hi.lanes) << 8));
  if (((at[0] | at[1] | at[2] | at[3]) & lanes) != lanes) return false;
  const __m512i magnitude = _mm512_and_si512(bits, _mm512_set1_epi32(0x7fff));
  bits = _mm512_mask_mov_epi32(  // NaN -> 0x7FC0
      bits, _mm512_cmpgt_epi32_mask(magnitude, _mm512_set1_epi32(0x7f80)),
      _mm512_set1_epi32(0x7fc0));
  bits = _mm512_maskz_mov_epi32(  // -0 -> +0
      _mm512_cmpneq_epi32_mask(bits, _mm512_set1_epi32(0x8000)), bits);
  auto row_pair = [&](__mmask16 left, __mmask16 right) {
    return _mm512_or_si512(_mm512_maskz_mov_epi32(left, bits),
                           _mm512_maskz_slli_epi32(right, bits, 16));
  };
  top = row_pair(at[0], at[1]);
  bottom = row_pair(at[2], at[3]);
  return true;
}

// Rows of more than 8 windows: a row's next 16 windows per vector.
bool backward_rows_2x2(const BFloat16* g, const int64_t* idx, BFloat16* dst, const Planes& s) {
  for (int64_t oh = 0; oh < s.Ho; ++oh)
    for (int64_t ow = 0; ow < s.Wo; ow += 16) {
      const __mmask16 lanes = first_lanes(s.Wo - ow);
      const int64_t window_at = 2 * oh * s.W + 2 * ow, at = oh * s.Wo + ow;
      const __m512i bits =
          _mm512_maskz_cvtepu16_epi32(lanes, _mm256_maskz_loadu_epi16(lanes, g + at));
      __m512i top, bottom;
      if (!window_rows({idx + at, window_at, __mmask8(lanes)},
                       {idx + at + 8, window_at + 16, __mmask8(lanes >> 8)}, bits, s, top, bottom))
        return false;
      _mm512_mask_storeu_epi32(dst + window_at, lanes, top);
      _mm512_mask_storeu_epi32(dst + window_at + s.W, lanes, bottom);
    }
  return true;
}

// Rows of 8 windows or fewer: two rows per vector (lanes 0-7 and 8-15), so that short rows
// (7 windows in the CNN's second pool) do not leave most lanes idle.
bool backward_row_pairs_2x2(const BFloat16* g, const int64_t* idx, BFloat16* dst,
                            const Planes& s) {
  const __mmask8 row = __mmask8((1u << s.Wo) - 1);
  for (int64_t oh = 0; oh < s.Ho; oh += 2) {
    const __mmask8 second = oh + 1 < s.Ho ? row : __mmask8(0);
    const int64_t at = oh * s.Wo, window_at = 2 * oh * s.W;
    const __m256i g16 = _mm256_set_m128i(_mm_maskz_loadu_epi16(second, g + at + s.Wo),
                                         _mm_maskz_loadu_epi16(row, g + at));
    const __m512i bits =
        _mm512_maskz_cvtepu16_epi32(__mmask16(row | (unsigned(second) << 8)), g16);
    __m512i top, bottom;
    if (!window_rows({idx + at, window_at, row}, {idx + at + s.Wo, window_at + 2 * s.W, second},
                     bits, s, top, bottom))
      return false;
    // (maskz extracts: GCC 12 warns that the casts' undefined pass-through is read uninitialised.)
    BFloat16* out = dst + window_at;
    _mm256_mask_storeu_epi32(out, row, _mm512_maskz_extracti64x4_epi64(0xf, top, 0));
    _mm256_mask_storeu_epi32(out + s.W, row, _mm512_maskz_extracti64x4_epi64(0xf, bottom, 0));
    _mm256_mask_storeu_epi32(out + 2 * s.W, second, _mm512_maskz_extracti64x4_epi64(0xf, top, 1));
    _mm256_mask_storeu_epi32(out + 3 * s.W, second,
                             _mm512_maskz_extracti64x4_epi64(0xf, bottom, 1));
  }
  return true;
}
#endif

// Whether one plane's backward was written by the rows above: bfloat16 planes tiled by 2x2
// windows, on AVX-512. Two threads of a 2-core Zen 5, batch 128, against the general loop:
// 32 planes of 28x28 (rows of 14 windows) 0.43 -> 0.28 ms, 32 of 20x20 (10) 0.25 -> 0.22;
// 64 of 14x14 (7) 0.27 -> 0.19 and 32 of 16x16 (8) 0.16 -> 0.10 two rows per vector (one row
// per vector, most lanes idle, had taken 0.33-0.35 and 0.19-0.21).
template <class T>
bool backward_2x2_rows(const T* g, const int64_t* idx, T* dst, const Planes& s) {
#if defined(__AVX512F__) && defined(__AVX512BW__)
  if constexpr (std::is_same_v<T, BFloat16>) {
    if (s.H == 2 * s.Ho && s.W == 2 * s.Wo)
      return s.Wo > 8 ? backward_rows_2x2(g, idx, dst, s) : backward_row_pairs_2x2(g, idx, dst, s);
  }
#endif
  (void)g, (void)idx, (void)dst, (void)s;
  return false;
}

}  // namespace

void max_pool2d(const Tensor& input, const Tensor& out, const Tensor& indices,
                const Pool2dParams& p) {
  const Planes s = planes(input, out);
  const bool fast = p.kernel[0] == 2 && p.kernel[1] == 2 && p.stride[0] == 2 &&
                    p.stride[1] == 2 && p.padding[0] == 0 && p.padding[1] == 0 &&
                    p.dilation[0] == 1 && p.dilation[1] == 1 && 2 * s.Ho <= s.H &&
                    2 * s.Wo <= s.W;  // ceil_mode may add a partial window
  dispatch<DtypeSet::Floating>(input.dtype(), "max_pool2d", [&]<class T>() {
    const T* in = cptr<T>(input);
    T* o = mptr<T>(out);
    int64_t* idx = indices.defined() ? mptr<int64_t>(indices) : nullptr;
    const int64_t in_plane = s.H * s.W, out_plane = s.Ho * s.Wo;
    for_planes(s.P, out_plane * p.kernel[0] * p.kernel[1], [&](int64_t p0, int64_t p1) {
      for (int64_t i = p0; i < p1; ++i) {
        if (fast && idx)
          max_2x2_indices<T>(in + i * in_plane, o + i * out_plane, idx + i * out_plane, s);
        else if (fast)
          max_plane_2x2<T>(in + i * in_plane, o + i * out_plane, s);
        else if (idx)
          max_plane<T, true>(in + i * in_plane, o + i * out_plane, idx + i * out_plane, s, p);
        else
          max_plane<T, false>(in + i * in_plane, o + i * out_plane, nullptr, s, p);
      }
    });
  });
}

void avg_pool2d(const Tensor& input, const Tensor& out, const Pool2dParams& p,
                bool count_include_pad, int64_t divisor) {
  const Planes s = planes(input, out);
  dispatch<DtypeSet::Floating>(input.dtype(), "avg_pool2d", [&]<class T>() {
    const T* in = cptr<T>(input);
    T* o = mptr<T>(out);
    const int64_t in_plane = s.H * s.W, out_plane = s.Ho * s.Wo;
    for_planes(s.P, out_plane * p.kernel[0] * p.kernel[1], [&](int64_t p0, int64_t p1) {
      for (int64_t i = p0; i < p1; ++i)
        avg_plane<T>(in + i * in_plane, o + i * out_plane, s, p, count_include_pad, divisor);
    });
  });
}

void adaptive_avg_pool2d(const Tensor& input, const Tensor& out) {
  const Planes s = planes(input, out);
  dispatch<DtypeSet::Floating>(input.dtype(), "adaptive_avg_pool2d", [&]<class T>() {
    const T* in = cptr<T>(input);
    T* o = mptr<T>(out);
    const int64_t in_plane = s.H * s.W, out_plane = s.Ho * s.Wo;
    for_planes(s.P, in_plane + out_plane, [&](int64_t p0, int64_t p1) {
      for (int64_t i = p0; i < p1; ++i) adaptive_avg_plane<T>(in + i * in_plane, o + i * out_plane, s);
    });
  });
}

void adaptive_max_pool2d(const Tensor& input, const Tensor& out, const Tensor& indices) {
  const Planes s = planes(input, out);
  dispatch<DtypeSet::Floating>(input.dtype(), "adaptive_max_pool2d", [&]<class T>() {
    const T* in = cptr<T>(input);
    T* o = mptr<T>(out);
    int64_t* idx = indices.defined() ? mptr<int64_t>(indices) : nullptr;
    const int64_t in_plane = s.H * s.W, out_plane = s.Ho * s.Wo;
    for_planes(s.P, in_plane + out_plane, [&](int64_t p0, int64_t p1) {
      for (int64_t i = p0; i < p1; ++i) {
        if (idx)
          adaptive_max_plane<T, true>(in + i * in_plane, o + i * out_plane, idx + i * out_plane, s);
        else
          adaptive_max_plane<T, false>(in + i * in_plane, o + i * out_plane, nullptr, s);
      }
    });
  });
}

// ── backward ──────────────────────────────────────────────────────────────
// Each plane is one thread's: overlapping windows add into the same plane without races.
void max_pool_backward(const Tensor& grad, const Tensor& indices, const Tensor& grad_input) {
  const int64_t P = grad_input.size(0), in_plane = grad_input.size(1) * grad_input.size(2);
  const int64_t out_plane = grad.size(1) * grad.size(2);
  const Planes s = planes(grad_input, grad);
  std::atomic<bool> bad{false};  // an index out of the plane (no throwing inside the threads)
  dispatch<DtypeSet::Floating>(grad.dtype(), "max_pool2d_backward", [&]<class T>() {
    const T* g = cptr<T>(grad);
    const int64_t* idx = cptr<int64_t>(indices);
    T* gi = mptr<T>(grad_input);
    for_planes(P, in_plane + out_plane, [&](int64_t p0, int64_t p1) {
      for (int64_t i = p0; i < p1; ++i) {
        using A = compute_t<T>;
        T* dst = gi + i * in_plane;
        if (backward_2x2_rows(g + i * out_plane, idx + i * out_plane, dst, s)) continue;
        std::memset(static_cast<void*>(dst), 0, size_t(in_plane) * sizeof(T));  // +0 in every type
        for (int64_t k = 0; k < out_plane; ++k) {
          const int64_t j = idx[i * out_plane + k];
          if (j < 0 || j >= in_plane) {
            bad.store(true, std::memory_order_relaxed);
            continue;
          }
          if constexpr (std::is_same_v<T, BFloat16>) {
            // Where nothing was added yet (windows that do not overlap: always), +0 + g rounds to
            // g's own bits but for -0 (+0) and NaN (0x7FC0): no widening and rounding per element.
            if (dst[j].x == 0) {
              const uint16_t b = g[i * out_plane + k].x;
              dst[j].x = (b & 0x7fff) > 0x7f80 ? uint16_t(0x7fc0) : b == 0x8000 ? uint16_t(0) : b;
              continue;
            }
          }
          dst[j] = T(A(dst[j]) + A(g[i * out_plane + k]));
        }
      }
    });
  });
  EMBER_CHECK(!bad.load(), "max_pool2d_backward", "found an index outside the input plane of ",
              in_plane, " elements");
}

void avg_pool2d_backward(const Tensor& grad, const Tensor& grad_input, const Pool2dParams& p,
                         bool count_include_pad, int64_t divisor) {
  const Planes s = planes(grad_input, grad);
  dispatch<DtypeSet::Floating>(grad.dtype(), "avg_pool2d_backward", [&]<class T>() {
    using A = compute_t<T>;
    const T* g = cptr<T>(grad);
    T* gi = mptr<T>(grad_input);
    const int64_t in_plane = s.H * s.W, out_plane = s.Ho * s.Wo;
    for_planes(s.P, out_plane * p.kernel[0] * p.kernel[1], [&](int64_t p0, int64_t p1) {
      for (int64_t i = p0; i < p1; ++i) {
        T* dst = gi + i * in_plane;
        std::fill_n(dst, in_plane, T(0));
        for (int64_t oh = 0; oh < s.Ho; ++oh)
          for (int64_t ow = 0; ow < s.Wo; ++ow) {
            const AvgWindow w = avg_window(oh, ow, s, p, count_include_pad, divisor);
            const A share = A(g[i * out_plane + oh * s.Wo + ow]) / A(w.divisor);
            for (int64_t ih = w.ih0; ih < w.ih1; ++ih)
              for (int64_t iw = w.iw0; iw < w.iw1; ++iw)
                dst[ih * s.W + iw] = T(A(dst[ih * s.W + iw]) + share);
          }
      }
    });
  });
}

void adaptive_avg_pool2d_backward(const Tensor& grad, const Tensor& grad_input) {
  const Planes s = planes(grad_input, grad);
  dispatch<DtypeSet::Floating>(grad.dtype(), "adaptive_avg_pool2d_backward", [&]<class T>() {
    using A = compute_t<T>;
    const T* g = cptr<T>(grad);
    T* gi = mptr<T>(grad_input);
    const int64_t in_plane = s.H * s.W, out_plane = s.Ho * s.Wo;
    for_planes(s.P, in_plane + out_plane, [&](int64_t p0, int64_t p1) {
      for (int64_t i = p0; i < p1; ++i) {
        T* dst = gi + i * in_plane;
        std::fill_n(dst, in_plane, T(0));
        for (int64_t oh = 0; oh < s.Ho; ++oh) {
          const int64_t ih0 = start_index(oh, s.Ho, s.H), ih1 = end_index(oh, s.Ho, s.H);
          for (int64_t ow = 0; ow < s.Wo; ++ow) {
            const int64_t iw0 = start_index(ow, s.Wo, s.W), iw1 = end_index(ow, s.Wo, s.W);
            const A share = A(g[i * out_plane + oh * s.Wo + ow]) / A(ih1 - ih0) / A(iw1 - iw0);
            for (int64_t ih = ih0; ih < ih1; ++ih)
              for (int64_t iw = iw0; iw < iw1; ++iw)
                dst[ih * s.W + iw] = T(A(dst[ih * s.W + iw]) + share);
          }
        }
      }
    });
  });
}

void add_pool_kernels(backend::Backend& b) {
  b.pool = {.max_pool2d = &max_pool2d,
            .avg_pool2d = &avg_pool2d,
            .adaptive_max_pool2d = &adaptive_max_pool2d,
            .adaptive_avg_pool2d = &adaptive_avg_pool2d,
            .max_pool_backward = &max_pool_backward,
            .avg_pool2d_backward = &avg_pool2d_backward,
            .adaptive_avg_pool2d_backward = &adaptive_avg_pool2d_backward};
}

}  // namespace EMBER_CPU_NS
