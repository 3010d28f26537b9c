// The flat convolution kernels for stride 1 (Note [Flat direct convolution], Note [Flat weight
// gradient]): the forward (also the adjoint, through conv.cpp's adjoint_as_forward) and the
// weight gradient, with no im2col copy and no GEMM packing. conv.cpp picks them.
#include "backend/cpu/conv_flat.h"

#include <omp.h>

#include "backend/buffers.h"

#if defined(__AVX__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "backend/cpu/conv.h"
#include "backend/cpu/conv_im2col.h"
#include "backend/cpu/kernels.h"
#include "core/parallel.h"

namespace EMBER_CPU_NS {
namespace {

// ── flat direct kernel (stride 1) ───────────────────────────────────────────
// Note [Flat direct convolution]
// With stride 1 the padded image of a group, (Cg, Hp, Wp) row-major, turns 2-D convolution into
// 1-D: output (y, x) computed at grid position p = y * Wp + x reads tap (c, i, j) at
// p + c*plane + i*dh*Wp + j*dw. So a run of consecutive positions is one contiguous load per
// tap, whatever the row width; positions with x >= Wo are computed and dropped. A tile of
// kFlatChannels output channels x 3 vectors keeps its accumulators in registers: with AVX-512's
// 32 registers 8 x 3 = 24 (per tap 3 loads and 8 broadcasts feed 24 FMAs); with AVX2's 16,
// 4 x 3 = 12 (24 would spill to the stack on every tap: 1.5x slower). So the kernel runs near
// the FMA peak with no im2col copy and no GEMM packing. Used while a group's weights fit in L2.
constexpr int kFlatChannels = kVecBytes == 64 ? 8 : 4;

// Rows of Wp = W + max(left, right padding) elements: a row's right padding is the next row's
// left padding, so fewer positions are wasted (1 of 15 at 14x14, padding 1). Each channel's
// plane ends with a zero row, so the last row's right padding is zeros too.
// Note [Wrapped rows]: when the output is as wide as the input (padding "same", e.g. 3x3 with
// padding 1) no position need be wasted: rows are W wide with no padding column, and a tap
// whose column offset dx = j*dw - pw leaves the row wraps into the row above or below instead.
// Each distinct dx reads its own copy of the image in which the columns that only wrapped reads
// reach are zero ([W + dx, W) for dx < 0, [0, dx) for dx > 0). The 1 position in 15 they save
// is 7% of the FMAs at 14x14, and positions are then output offsets. But the kw copies must
// still fit L1 for the rows one chunk of positions reads: 32 -> 64 at 14x14 gains ~5%, its
// adjoint (64 input channels) loses as much. The weight gradient wastes no positions anyway.
constexpr int64_t kWrapMaxBytes = int64_t(32) << 10;  // L1d of AVX2/AVX-512 cores
struct FlatLayout {
  int64_t Wp, plane, positions;
  int64_t copies, copy, lead;  // kw copies of `copy` elements when wrapped, else one; zero head
  int64_t size;                // elements of the whole buffer
};

template <class T>
FlatLayout flat_layout(const Geometry& g, bool may_wrap) {
  FlatLayout L{};
  const int64_t Hp = std::max(g.H + 2 * g.ph, g.Ho + (g.kh - 1) * g.dh);
  // Rows one chunk (3 vectors) of output positions reads, in all kw copies of all channels.
  const int64_t chunk_rows =
      (3 * Vec<T>::size + g.W - 1) / std::max<int64_t>(g.W, 1) + 1 + (g.kh - 1) * g.dh;
  const bool wrapped = may_wrap && g.Wo == g.W && g.kw > 1 &&  // (kw == 1: no padding column)
                       g.kw * g.Cg * chunk_rows * g.W * int64_t(sizeof(T)) <= kWrapMaxBytes;
  if (wrapped) {
    L.Wp = g.W, L.copies = g.kw, L.lead = g.W + g.pw;  // what dx < 0 reads before row 0
  } else {
    const int64_t right = g.Wo + (g.kw - 1) * g.dw - g.W - g.pw;  // padding the windows reach
    L.Wp = std::max(g.W + std::max(g.pw, right), g.Wo), L.copies = 1, L.lead = 0;
  }
  L.plane = (Hp + 1) * L.Wp;
  L.positions = g.Ho * L.Wp;
  // The last vector reads up to a vector past the positions; a wrapped tap up to dx further.
  const int64_t vectors = (L.positions + Vec<T>::size - 1) / Vec<T>::size;
  const int64_t last_tap = (g.Cg - 1) * L.plane + (g.kh - 1) * g.dh * L.Wp + (g.kw - 1) * g.dw;
  L.copy = L.lead + std::max(g.Cg * L.plane, vectors * Vec<T>::size + last_tap + g.W);
  L.size = L.copies * L.copy;
  return L;
}

// Offsets of the K taps (c, i, j) in the flat buffer, then zeros up to `count` (dummy taps).
template <class T>
std::vector<int64_t> flat_taps(const Geometry& g, const FlatLayout& L, int64_t count) {
  std::vector<int64_t> taps;
  taps.reserve(size_t(std::max(count, g.K())));
  for (int64_t c = 0; c < g.Cg; ++c)
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j)
        taps.push_back(L.copies > 1
                           ? j * L.copy + L.lead + c * L.plane + i * g.dh * L.Wp + j * g.dw - g.pw
                           : c * L.plane + i * g.dh * L.Wp + j * g.dw);
  if (count > g.K()) taps.resize(size_t(count), L.lead);
  return taps;
}

template <class T>
void flat_pad(const Geometry& g, const FlatLayout& L, const T* in, T* buf) {
  std::fill_n(buf, L.size, T(0));
  const int64_t left = L.copies > 1 ? 0 : g.pw;
  for (int64_t k = 0; k < L.copies; ++k) {
    T* copy = buf + k * L.copy + L.lead;
    for (int64_t c = 0; c < g.Cg; ++c)
      for (int64_t y = 0; y < g.H; ++y)
        std::memcpy(copy + c * L.plane + (y + g.ph) * L.Wp + left, in + (c * g.H + y) * g.W,
                    sizeof(T) * size_t(g.W));
    if (L.copies == 1) break;
    // The columns only wrapped reads of this copy's dx reach (Note [Wrapped rows]).
    const int64_t dx = k * g.dw - g.pw;
    const int64_t z0 = dx < 0 ? std::max<int64_t>(g.W + dx, 0) : 0;
    const int64_t z1 = dx < 0 ? g.W : std::min(dx, g.W);
    for (int64_t r = 0; r < g.Cg * L.plane / L.Wp; ++r)
      std::fill(copy + r * L.Wp + z0, copy + r * L.Wp + z1, T(0));
  }
}

// dst[b * ld + r * VL + l] = bias[b] + sum_t w[b * K + t] * in[taps[t] + r * VL + l].
template <class T, int B, int R>
void flat_tile(const T* in, const int64_t* taps, int64_t K, const T* w, const T* bias, T* dst,
               int64_t ld) {
  using V = Vec<T>;
  constexpr int VL = V::size;
  V acc[B][R];
  for (int b = 0; b < B; ++b)
    for (int r = 0; r < R; ++r) acc[b][r] = V(bias ? bias[b] : T(0));
  for (int64_t t = 0; t < K; ++t) {
    const T* p = in + taps[t];
    V x[R];
    for (int r = 0; r < R; ++r) x[r] = V::load(p + r * VL);
    for (int b = 0; b < B; ++b) {
      const V wb = splat(w[b * K + t]);
      for (int r = 0; r < R; ++r) acc[b][r] = acc[b][r] + wb * x[r];
    }
  }
  for (int b = 0; b < B; ++b)
    for (int r = 0; r < R; ++r) acc[b][r].store(dst + b * ld + r * VL);
}

// Output channels [o, o + B) at grid positions [p0, p0 + R*VL): the tile, then its valid
// pieces of rows copied out. out: (Og, Ho, Wo) of this image and group. With rows as wide as
// the output's (Note [Wrapped rows]) positions are output offsets: a whole tile is stored
// straight from the registers.
template <class T, int B, int R>
void flat_block(const Geometry& g, const FlatLayout& L, const T* buf, const int64_t* taps,
                const T* w, const T* bias, T* out, int64_t o, int64_t p0) {
  constexpr int VL = Vec<T>::size;
  const T* wo = w + o * g.K();
  const T* bo = bias ? bias + o : nullptr;
  const int64_t p1 = std::min(p0 + R * VL, L.positions), HWo = g.Ho * g.Wo;
  if (L.Wp == g.Wo && p1 == p0 + R * VL) {
    flat_tile<T, B, R>(buf + p0, taps, g.K(), wo, bo, out + o * HWo + p0, HWo);
    return;
  }
  alignas(64) T tmp[B * R * VL];
  flat_tile<T, B, R>(buf + p0, taps, g.K(), wo, bo, tmp, R * VL);
  for (int64_t p = p0; p < p1;) {
    const int64_t y = p / L.Wp, x = p - y * L.Wp, row_end = std::min(p1, (y + 1) * L.Wp);
    if (x < g.Wo) {
      const size_t n = size_t(std::min(row_end - p, g.Wo - x));
      // (n <= p1 - p0: said to GCC, which otherwise warns that copy_short's longer cases would
      // read past tmp)
      if (n > size_t(R * VL)) __builtin_unreachable();
      for (int b = 0; b < B; ++b)
        copy_short(out + ((o + b) * g.Ho + y) * g.Wo + x, tmp + b * R * VL + (p - p0),
                   sizeof(T) * n);
    }
    p = row_end;
  }
}

template <class T, int R>
void flat_chunk(const Geometry& g, const FlatLayout& L, const T* buf, const int64_t* taps,
                const T* w, const T* bias, T* out, int64_t p0) {
  int64_t o = 0;
  for (; o + kFlatChannels <= g.Og; o += kFlatChannels)
    flat_block<T, kFlatChannels, R>(g, L, buf, taps, w, bias, out, o, p0);
  for (; o + 4 <= g.Og; o += 4) flat_block<T, 4, R>(g, L, buf, taps, w, bias, out, o, p0);
  for (; o < g.Og; ++o) flat_block<T, 1, R>(g, L, buf, taps, w, bias, out, o, p0);
}

// ── flat weight gradient (stride 1) ────────────────────────────────────────
// Note [Flat weight gradient]
// grad_w[o][t] = sum over images and output positions (y, x) of g[o][y][x] * buf[y*Wp + x + tap_t]
// in the flat layout of Note [Flat direct convolution]. Vectors run over output channels: each
// image's grad is transposed to gT (Ho*Wo, Ogp) (Og rounded up to a vector, zeros beyond), and a
// tile of 2 vectors of channels x 6 taps keeps 12 accumulators in registers (4 x 6 = 24 of
// AVX-512's 32): per position 2 loads and 6 broadcasts feed 12 FMAs (4 and 6 feed 24), no im2col
// copy, no GEMM packing, no horizontal sums.
// A thread accumulates its images into its own (G, Kp, Ogp) copy (taps padded to whole tiles
// with a dummy tap whose row is dropped); the copies are summed and transposed at the end.
constexpr int kWgradTaps = 6;
// AVX-512's 32 registers hold a tile of 4 vectors x 6 taps: each broadcast feeds twice the FMAs
// and the input is read half as often (conv 32->64 at 14x14, batch 128, on a 2-core Zen 5:
// 3.76 -> 3.27 ms, then 2.5 with transpose_8x8; oneDNN 2.75-3.0).
constexpr int kWgradWideVectors = kVecBytes == 64 ? 4 : 2;

// acc (TT, ld_acc) += sum over positions of gT (Ho*Wo, ld_g) [OV vectors] x buf[p + taps[t]].
template <class T, int OV, int TT>
void wgrad_tile(const Geometry& g, const FlatLayout& L, const T* gT, int64_t ld_g, const T* buf,
                const int64_t* taps, T* acc, int64_t ld_acc) {
  using V = Vec<T>;
  constexpr int VL = V::size;
  V a[TT][OV];
  for (int t = 0; t < TT; ++t)
    for (int v = 0; v < OV; ++v) a[t][v] = V::load(acc + t * ld_acc + v * VL);
  const T* src[TT];
  for (int t = 0; t < TT; ++t) src[t] = buf + taps[t];
  for (int64_t y = 0; y < g.Ho; ++y) {
    const T* gy = gT + y * g.Wo * ld_g;
    const int64_t py = y * L.Wp;
    for (int64_t x = 0; x < g.Wo; ++x) {
      V gv[OV];
      for (int v = 0; v < OV; ++v) gv[v] = V::load(gy + x * ld_g + v * VL);
      for (int t = 0; t < TT; ++t) {
        const V b = splat(src[t][py + x]);
        for (int v = 0; v < OV; ++v) a[t][v] = a[t][v] + gv[v] * b;
      }
    }
  }
  for (int t = 0; t < TT; ++t)
    for (int v = 0; v < OV; ++v) a[t][v].store(acc + t * ld_acc + v * VL);
}

#if defined(__AVX__)
// out[c * ldo + r] = in[r * ldi + c] for an 8 x 8 block of floats, in registers (the scalar
// transpose was a quarter of the weight gradient's time at AVX-512).
inline void transpose_8x8(const float* in, int64_t ldi, float* out, int64_t ldo) {
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(in + i * ldi);
  for (int i = 0; i < 8; i += 2) {  // pairs of rows interleaved
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {  // then pairs of pairs: columns within each 128-bit half
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int i = 0; i < 4; ++i) {  // and the halves of rows 0-3 with those of rows 4-7
    _mm256_storeu_ps(out + i * ldo, _mm256_permute2f128_ps(r[i], r[i + 4], 0x20));
    _mm256_storeu_ps(out + (i + 4) * ldo, _mm256_permute2f128_ps(r[i], r[i + 4], 0x31));
  }
}
#endif

// gT (HWo, Ogp) = g (Og, HWo)^T, zero in columns Og..Ogp. Blocks of 8 x 8 stay in L1.
template <class T>
void transpose_grad(const T* g, int64_t Og, int64_t HWo, int64_t Ogp, T* gT) {
  for (int64_t p0 = 0; p0 < HWo; p0 += 8) {
    const int64_t p1 = std::min(p0 + 8, HWo);
    for (int64_t o0 = 0; o0 < Ogp; o0 += 8) {
      const int64_t o1 = std::min(o0 + 8, Ogp);
#if defined(__AVX__)
      if constexpr (std::is_same_v<T, float>)
        if (p1 - p0 == 8 && o0 + 8 <= Og) {
          transpose_8x8(g + o0 * HWo + p0, HWo, gT + p0 * Ogp + o0, Ogp);
          continue;
        }
#endif
      for (int64_t p = p0; p < p1; ++p)
        for (int64_t o = o0; o < o1; ++o) gT[p * Ogp + o] = o < Og ? g[o * HWo + p] : T(0);
    }
  }
}

template <class T>
void flat_forward(const Geometry& g, const T* in, const T* w, const T* bias, T* out) {
  constexpr int VL = Vec<T>::size;
  const FlatLayout L = flat_layout<T>(g, true);
  const std::vector<int64_t> taps = flat_taps<T>(g, L, g.K());
  const int64_t vectors = (L.positions + VL - 1) / VL, chunks = (vectors + 2) / 3;
  const int64_t in_plane = g.Cg * g.H * g.W, out_plane = g.Og * g.Ho * g.Wo;
  // Chunk k covers vectors [3k, 3k + 3); the last one may hold fewer.
  auto chunk_range = [&](const T* buf, int64_t ng, int64_t k0, int64_t k1) {
    const int64_t gi = ng % g.G;
    const T* wg = w + gi * g.Og * g.K();
    const T* bg = bias ? bias + gi * g.Og : nullptr;
    T* og = out + ng * out_plane;
    for (int64_t k = k0; k < k1; ++k) {
      const int64_t r = std::min<int64_t>(3, vectors - 3 * k), p0 = 3 * k * VL;
      if (r == 3)
        flat_chunk<T, 3>(g, L, buf, taps.data(), wg, bg, og, p0);
      else if (r == 2)
        flat_chunk<T, 2>(g, L, buf, taps.data(), wg, bg, og, p0);
      else
        flat_chunk<T, 1>(g, L, buf, taps.data(), wg, bg, og, p0);
    }
  };
  const Dtype dt = std::is_same_v<T, float> ? kFloat32 : kFloat64;
  const int64_t planes = g.N * g.G;
  if (split_images(planes)) {
    parallel_for(0, planes, 1, [&](int64_t p0, int64_t p1) {
      Tensor b = backend::new_buffer({L.size}, dt);
      T* buf = static_cast<T*>(b.data_ptr());
      for (int64_t ng = p0; ng < p1; ++ng) {
        flat_pad(g, L, in + ng * in_plane, buf);
        chunk_range(buf, ng, 0, chunks);
      }
    });
  } else {
    // Few images: pad each once, spread its chunks over the threads.
    Tensor b = backend::new_buffer({L.size}, dt);
    T* buf = static_cast<T*>(b.data_ptr());
    for (int64_t ng = 0; ng < planes; ++ng) {
      flat_pad(g, L, in + ng * in_plane, buf);
      parallel_for(0, chunks, 1, [&](int64_t k0, int64_t k1) { chunk_range(buf, ng, k0, k1); });
    }
  }
}

template <class T>
void flat_weight_grad(const Geometry& g, const T* grad, const T* in, T* gw) {
  constexpr int VL = Vec<T>::size;
  const FlatLayout L = flat_layout<T>(g, false);
  const int64_t K = g.K(), HWo = g.Ho * g.Wo;
  const int64_t Kp = (K + kWgradTaps - 1) / kWgradTaps * kWgradTaps,
                Ogp = (g.Og + VL - 1) / VL * VL;
  const std::vector<int64_t> taps = flat_taps<T>(g, L, Kp);
  const bool split = split_images(g.N);
  const int threads = split ? get_num_threads() : 1;
  const int64_t part = g.G * Kp * Ogp;  // one thread's (G, Kp, Ogp)
  const Dtype dt = std::is_same_v<T, float> ? kFloat32 : kFloat64;
  Tensor partial = backend::new_zeros({threads, part}, dt);
  T* parts = static_cast<T*>(partial.data_ptr());
  auto images = [&](int64_t n0, int64_t n1) {
    Tensor scratch = backend::new_buffer({L.size + HWo * Ogp}, dt);
    T* buf = static_cast<T*>(scratch.data_ptr());
    T* gT = buf + L.size;
    T* acc = parts + (split ? omp_get_thread_num() : 0) * part;
    for (int64_t n = n0; n < n1; ++n)
      for (int64_t gi = 0; gi < g.G; ++gi) {
        flat_pad(g, L, in + (n * g.C + gi * g.Cg) * g.H * g.W, buf);
        transpose_grad(grad + (n * g.O + gi * g.Og) * HWo, g.Og, HWo, Ogp, gT);
        T* ag = acc + gi * Kp * Ogp;
        for (int64_t t = 0; t < Kp; t += kWgradTaps) {
          int64_t o = 0;
          if constexpr (kWgradWideVectors > 2)
            for (; o + kWgradWideVectors * VL <= Ogp; o += kWgradWideVectors * VL)
              wgrad_tile<T, kWgradWideVectors, kWgradTaps>(g, L, gT + o, Ogp, buf, &taps[t],
                                                           ag + t * Ogp + o, Ogp);
          for (; o + 2 * VL <= Ogp; o += 2 * VL)
            wgrad_tile<T, 2, kWgradTaps>(g, L, gT + o, Ogp, buf, &taps[t], ag + t * Ogp + o, Ogp);
          for (; o < Ogp; o += VL)
            wgrad_tile<T, 1, kWgradTaps>(g, L, gT + o, Ogp, buf, &taps[t], ag + t * Ogp + o, Ogp);
        }
      }
  };
  if (split)
    parallel_for(0, g.N, 1, images);
  else
    images(0, g.N);
  for (int64_t gi = 0; gi < g.G; ++gi)
    for (int64_t o = 0; o < g.Og; ++o)
      for (int64_t t = 0; t < K; ++t) {
        const int64_t i = (gi * Kp + t) * Ogp + o;
        T s = parts[i];
        for (int th = 1; th < threads; ++th) s += parts[th * part + i];
        gw[(gi * g.Og + o) * K + t] = s;
      }
}

}  // namespace

void conv_flat(const Geometry& g, const float* in, const float* w, const float* bias, float* out) {
  flat_forward(g, in, w, bias, out);
}
void conv_flat(const Geometry& g, const double* in, const double* w, const double* bias,
               double* out) {
  flat_forward(g, in, w, bias, out);
}
void conv_weight_grad_flat(const Geometry& g, const float* grad, const float* in, float* gw) {
  flat_weight_grad(g, grad, in, gw);
}
void conv_weight_grad_flat(const Geometry& g, const double* grad, const double* in, double* gw) {
  flat_weight_grad(g, grad, in, gw);
}

}  // namespace EMBER_CPU_NS
