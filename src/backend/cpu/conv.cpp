// Convolution kernels: a direct vectorised kernel for small reductions (few input channels per
// group, depthwise), im2col + OpenBLAS GEMM for the rest, col2im for the adjoint (transposed
// convolution, grad_input) and GEMM with im2col for the weight gradient.
#include "backend/cpu/conv.h"

#include <cblas.h>
#include <omp.h>

#include "backend/buffers.h"

#if defined(__AVX__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "backend/cpu/conv_flat.h"
#include "backend/cpu/conv_geometry.h"
#include "backend/cpu/conv_im2col.h"
#include "backend/cpu/conv_winograd.h"
#include "backend/cpu/kernels.h"
#include "backend/cpu/optional_data.h"
#include "backend/cpu/vec.h"
#include "core/dispatch.h"
#include "core/parallel.h"

namespace EMBER_CPU_NS {
namespace {

// Note [Convolution algorithms]
// out[n, o] (Ho*Wo) = sum over c in o's group, i < kH, j < kW of w[o, c, i, j] * shifted input.
// - With stride > 1, a reduction of K = C/g*kH*kW terms that is short (K <= kDirectMaxK) or a
//   group with few output channels leaves GEMM nothing to block on: the direct kernel pads each
//   input plane once (split into `stride` phases so that every tap is a contiguous load), then
//   accumulates whole vectors of one output row over the K taps.
// - Otherwise im2col + GEMM per image and group: col (K, Ho*Wo) holds the shifted inputs and
//   out_g (O/g, Ho*Wo) = w_g (O/g, K) @ col. col is built for a block of output rows at a time,
//   at most kColBudget elements, so it stays in cache and big images need no huge temporary.
//   1x1 convolutions with stride 1 and no padding skip im2col: the input already is col.
// - Stride 1 while a group's weights fit in L2: the flat kernels (Note [Flat direct
//   convolution] forward and adjoint, Note [Flat weight gradient]) instead of GEMM; short
//   reductions too (1 -> 32 channels at 28x28, depthwise 3x3: 1.2-2x faster than the direct
//   kernel at avx2 and avx512 on a Zen 5, whose accumulators each chain all K taps).
// - float32 3x3, stride 1, dilation 1, one group, where winograd_wins: Winograd F(2x2, 3x3)
//   (Note [Winograd convolution] in conv_winograd.cpp); grad_input too, via adjoint_as_forward.
// Threads: with at least as many images as threads (or a multiple), each thread takes a run of
// whole images and calls single-threaded BLAS (OpenBLAS's OpenMP build goes serial inside a
// parallel region); with fewer images the images run one after another on threaded BLAS.
constexpr int64_t kDirectMaxK = 16;
constexpr int64_t kColBudget = int64_t(1) << 18;  // elements: 1 MiB of float per thread

}  // namespace

Geometry conv_geometry(const Tensor& input, const Tensor& weight, const Tensor& out,
                       const Conv2dParams& p) {
  Geometry g{};
  g.N = input.size(0), g.C = input.size(1), g.H = input.size(2), g.W = input.size(3);
  g.O = weight.size(0), g.kh = weight.size(2), g.kw = weight.size(3);
  g.Ho = out.size(2), g.Wo = out.size(3);
  g.G = p.groups, g.Cg = g.C / g.G, g.Og = g.O / g.G;
  g.sh = p.stride[0], g.sw = p.stride[1], g.ph = p.padding[0], g.pw = p.padding[1];
  g.dh = p.dilation[0], g.dw = p.dilation[1];
  return g;
}

namespace {

template <class T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
          int64_t ldb, T beta, T* c, int64_t ldc) {
  const auto TA = ta ? CblasTrans : CblasNoTrans, TB = tb ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemm(CblasRowMajor, TA, TB, blasint(m), blasint(n), blasint(k), 1.0f, a, blasint(lda),
                b, blasint(ldb), beta, c, blasint(ldc));
  else
    cblas_dgemm(CblasRowMajor, TA, TB, blasint(m), blasint(n), blasint(k), 1.0, a, blasint(lda), b,
                blasint(ldb), beta, c, blasint(ldc));
}

// OpenBLAS's OpenMP build sizes its team from the caller's omp_get_max_threads(); keep it and
// OpenBLAS's own count at ember's thread count (cf. sync_blas_threads in blas.cpp).
void sync_blas_threads() {
  if (omp_in_parallel()) return;
  const int n = get_num_threads();
  if (omp_get_max_threads() != n) omp_set_num_threads(n);
  if (openblas_get_num_threads() != n) openblas_set_num_threads(n);
}

// Runs body(n0, n1, scratch) over runs of images, one scratch buffer of `scratch` elements per
// run (from the caching allocator: a fresh malloc would page-fault on every call).
template <class T, class F>
void for_images(int64_t N, int64_t scratch, const F& body) {
  const Dtype dt = std::is_same_v<T, float> ? kFloat32 : kFloat64;
  if (split_images(N)) {
    parallel_for(0, N, 1, [&](int64_t n0, int64_t n1) {
      Tensor buf = backend::new_buffer({std::max<int64_t>(scratch, 1)}, dt);
      body(n0, n1, static_cast<T*>(buf.data_ptr()));
    });
  } else {
    sync_blas_threads();
    Tensor buf = backend::new_buffer({std::max<int64_t>(scratch, 1)}, dt);
    body(0, N, static_cast<T*>(buf.data_ptr()));
  }
}

// Rows of output per im2col block: all of them when col fits the budget.
int64_t rows_per_block(const Geometry& g) {
  return std::clamp<int64_t>(kColBudget / std::max<int64_t>(g.K() * g.Wo, 1), 1, g.Ho);
}

// The adjoint of im2col: out (Cg, H, W) += col scattered back (windows overlap, so it adds).
// Parallel over input channels: rows of one channel all write the same plane.
template <class T>
void col2im(const Geometry& g, const T* col, T* out, int64_t y0, int64_t y1, bool parallel) {
  const int64_t cols = (y1 - y0) * g.Wo, kk = g.kh * g.kw;
  auto channels = [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c)
      for (int64_t ij = 0; ij < kk; ++ij) {
        const int64_t i = ij / g.kw, j = ij % g.kw;
        const T* src = col + (c * kk + ij) * cols;
        const int64_t off = j * g.dw - g.pw;
        const int64_t xa = std::clamp<int64_t>((-off + g.sw - 1) / g.sw, 0, g.Wo);
        const int64_t xb = std::clamp<int64_t>((g.W - off + g.sw - 1) / g.sw, xa, g.Wo);
        for (int64_t y = y0; y < y1; ++y, src += g.Wo) {
          const int64_t iy = y * g.sh - g.ph + i * g.dh;
          if (iy < 0 || iy >= g.H) continue;
          T* dst = out + (c * g.H + iy) * g.W + off;
          if (g.sw == 1)
            for (int64_t x = xa; x < xb; ++x) dst[x] += src[x];
          else
            for (int64_t x = xa; x < xb; ++x) dst[x * g.sw] += src[x];
        }
      }
  };
  if (parallel)
    parallel_for(0, g.Cg, 1, channels);
  else
    channels(0, g.Cg);
}

// ── direct kernel ───────────────────────────────────────────────────────────
// The padded copy of one image's group: for channel c, padded row r and phase q < sw, a run of
// `len` elements holding padded columns q, q + sw, q + 2 sw, ... (zeros beyond the image), so
// the tap j of output column x is element x + j*dw/sw of phase j*dw%sw: a contiguous load.
struct PaddedLayout {
  int64_t Hp, len;
  int64_t size(const Geometry& g) const { return g.Cg * Hp * g.sw * len; }
};

template <class T>
PaddedLayout padded_layout(const Geometry& g) {
  // What the windows reach: more than 2 * padding on the right for padding="same" with an even
  // kernel (the extra is implied by the output size).
  const int64_t Hp = std::max(g.H + 2 * g.ph, (g.Ho - 1) * g.sh + (g.kh - 1) * g.dh + 1);
  const int64_t Wp = std::max(g.W + 2 * g.pw, (g.Wo - 1) * g.sw + (g.kw - 1) * g.dw + 1);
  // + one vector: the last (partial) vector of a row may read past the row's end.
  return {Hp, (Wp + g.sw - 1) / g.sw + Vec<T>::size};
}

template <class T>
void pad_planes(const Geometry& g, const PaddedLayout& L, const T* in, T* buf) {
  for (int64_t c = 0; c < g.Cg; ++c)
    for (int64_t r = 0; r < L.Hp; ++r) {
      const int64_t iy = r - g.ph;
      for (int64_t q = 0; q < g.sw; ++q) {
        T* dst = buf + ((c * L.Hp + r) * g.sw + q) * L.len;
        if (iy < 0 || iy >= g.H) {
          std::fill(dst, dst + L.len, T(0));
          continue;
        }
        const T* src = in + (c * g.H + iy) * g.W;
        for (int64_t k = 0; k < L.len; ++k) {
          const int64_t ix = k * g.sw + q - g.pw;
          dst[k] = ix >= 0 && ix < g.W ? src[ix] : T(0);
        }
      }
    }
}


// Offsets of the K taps (c, i, j) in the padded buffer, relative to output (0, 0).
template <class T>
std::vector<int64_t> tap_offsets(const Geometry& g, const PaddedLayout& L) {
  std::vector<int64_t> off;
  off.reserve(size_t(g.K()));
  for (int64_t c = 0; c < g.Cg; ++c)
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j) {
        const int64_t t = j * g.dw;
        off.push_back(((c * L.Hp + i * g.dh) * g.sw + t % g.sw) * L.len + t / g.sw);
      }
  return off;
}

// Output channels [o, o + B) of one group, all rows: each input vector loaded once feeds B
// accumulators. w: (Og, K) of this group; out: (Og, Ho, Wo) of this image and group.
// A row's last vector is moved back to end at Wo (overlapping the one before) rather than
// stored partially; only rows narrower than a vector go through a buffer.
template <class T, int B>
void direct_channels(const Geometry& g, const PaddedLayout& L, const int64_t* taps,
                     const T* buf, const T* w, const T* bias, T* out, int64_t o) {
  using V = Vec<T>;
  constexpr int VL = V::size;
  const int64_t K = g.K(), row_step = g.sh * g.sw * L.len;
  const T* wo = w + o * K;
  for (int64_t y = 0; y < g.Ho; ++y)
    for (int64_t x0 = 0; x0 < g.Wo; x0 += VL) {
      const int64_t x = g.Wo >= VL ? std::min<int64_t>(x0, g.Wo - VL) : 0;
      const T* base = buf + y * row_step + x;
      V acc[B];
      for (int b = 0; b < B; ++b) acc[b] = V(bias ? bias[o + b] : T(0));
      for (int64_t t = 0; t < K; ++t) {
        const V v = V::load(base + taps[t]);
        for (int b = 0; b < B; ++b) acc[b] = acc[b] + splat(wo[b * K + t]) * v;
      }
      for (int b = 0; b < B; ++b) {
        T* dst = out + ((o + b) * g.Ho + y) * g.Wo + x;
        if (g.Wo >= VL) {
          acc[b].store(dst);
        } else {
          T tmp[VL];
          acc[b].store(tmp);
          std::memcpy(dst, tmp, sizeof(T) * size_t(g.Wo));
        }
      }
    }
}

template <class T>
void conv_direct(const Geometry& g, const T* in, const T* w, const T* bias, T* out) {
  const PaddedLayout L = padded_layout<T>(g);
  const int64_t planes = g.N * g.G;  // (image, group) pairs
  const int64_t in_plane = g.Cg * g.H * g.W, out_plane = g.Og * g.Ho * g.Wo;
  const std::vector<int64_t> taps = tap_offsets<T>(g, L);
  auto run = [&](const T* buf, int64_t ng, int64_t o0, int64_t o1) {
    const int64_t gi = ng % g.G;
    const T* wg = w + gi * g.Og * g.K();
    const T* bg = bias ? bias + gi * g.Og : nullptr;
    T* og = out + ng * out_plane;
    int64_t o = o0;
    for (; o + 8 <= o1; o += 8) direct_channels<T, 8>(g, L, taps.data(), buf, wg, bg, og, o);
    for (; o + 4 <= o1; o += 4) direct_channels<T, 4>(g, L, taps.data(), buf, wg, bg, og, o);
    for (; o < o1; ++o) direct_channels<T, 1>(g, L, taps.data(), buf, wg, bg, og, o);
  };
  const Dtype dt = std::is_same_v<T, float> ? kFloat32 : kFloat64;
  if (planes >= get_num_threads()) {
    // Each thread pads the planes of its run once.
    const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(out_plane, 1));
    parallel_for(0, planes, grain, [&](int64_t p0, int64_t p1) {
      Tensor b = backend::new_buffer({L.size(g)}, dt);
      T* buf = static_cast<T*>(b.data_ptr());
      for (int64_t ng = p0; ng < p1; ++ng) {
        pad_planes(g, L, in + ng * in_plane, buf);
        run(buf, ng, 0, g.Og);
      }
    });
  } else {
    // Few planes (one image): pad once, split output channels over threads in blocks of 8.
    Tensor b = backend::new_buffer({L.size(g)}, dt);
    T* buf = static_cast<T*>(b.data_ptr());
    for (int64_t ng = 0; ng < planes; ++ng) {
      pad_planes(g, L, in + ng * in_plane, buf);
      const int64_t blocks = (g.Og + 7) / 8;
      parallel_for(0, blocks, 1, [&](int64_t b0, int64_t b1) {
        run(buf, ng, b0 * 8, std::min(b1 * 8, g.Og));
      });
    }
  }
}

// ── im2col + GEMM ───────────────────────────────────────────────────────────
template <class T>
void conv_gemm(const Geometry& g, const T* in, const T* w, const T* bias, T* out) {
  const int64_t K = g.K(), HWo = g.Ho * g.Wo, rows = rows_per_block(g);
  const bool pointwise = g.pointwise();
  const bool parallel_inner = !split_images(g.N);
  for_images<T>(g.N, pointwise ? 0 : K * rows * g.Wo, [&](int64_t n0, int64_t n1, T* col) {
    for (int64_t n = n0; n < n1; ++n)
      for (int64_t gi = 0; gi < g.G; ++gi) {
        const T* ig = in + (n * g.C + gi * g.Cg) * g.H * g.W;  // (Cg, H, W)
        const T* wg = w + gi * g.Og * K;                         // (Og, K)
        T* og = out + (n * g.O + gi * g.Og) * HWo;               // (Og, Ho, Wo)
        if (bias)
          for (int64_t o = 0; o < g.Og; ++o) std::fill_n(og + o * HWo, HWo, bias[gi * g.Og + o]);
        const T beta = bias ? T(1) : T(0);
        if (pointwise) {
          gemm<T>(false, false, g.Og, HWo, K, wg, K, ig, HWo, beta, og, HWo);
          continue;
        }
        for (int64_t y0 = 0; y0 < g.Ho; y0 += rows) {
          const int64_t y1 = std::min(g.Ho, y0 + rows), cols = (y1 - y0) * g.Wo;
          im2col(g, ig, col, cols, y0, y1, parallel_inner);
          gemm<T>(false, false, g.Og, cols, K, wg, K, col, cols, beta, og + y0 * g.Wo, HWo);
        }
      }
  });
}

template <class T>
void conv_forward(const Geometry& g, const T* in, const T* w, const T* bias, T* out) {
  if (g.K() == 0) {  // no input channels: an empty sum (BLAS rejects k == 0 leading dims)
    for (int64_t i = 0; i < g.N * g.O; ++i)
      std::fill_n(out + i * g.Ho * g.Wo, g.Ho * g.Wo, bias ? bias[i % g.O] : T(0));
    return;
  }
  const bool flat = g.sh == 1 && g.sw == 1 && !g.pointwise() && g.Og * g.K() <= kFlatMaxWeights;
  if constexpr (std::is_same_v<T, float>) {
    const WinogradShape s{g.N, g.C, g.H, g.W, g.O, g.Ho, g.Wo, g.ph, g.pw};
    if (g.G == 1 && g.kh == 3 && g.kw == 3 && g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 &&
        winograd_wins(s))
      return conv_winograd(s, in, w, bias, out);
  }
  if (flat) {
    // Also for short reductions and one or two output channels (conv1's grad_input: 32 -> 1):
    // 3 vectors of positions give 3 independent sums where the direct kernel chains all K FMAs
    // of a vector into one register.
    conv_flat(g, in, w, bias, out);
  } else if ((g.K() <= kDirectMaxK || g.Og <= 2) && g.kh * g.kw > 1) {
    conv_direct(g, in, w, bias, out);
  } else {
    conv_gemm(g, in, w, bias, out);
  }
}

// grad (N, O, Ho, Wo) -> out (N, C, H, W): per image and group, col = w_g^T @ grad_g, then
// col2im. A pointwise conv writes w_g^T @ grad_g straight into out.
// grad_input with stride 1 as the adjoint's forward convolution (adjoint_geometry in
// conv_geometry.h): the forward kernels (the flat one, mostly) then do it without col2im.
template <class T>
bool adjoint_as_forward(const Geometry& g, const T* grad, const T* w, const T* bias, T* out) {
  Geometry f;
  if (g.pointwise() || !adjoint_geometry(g, f)) return false;
  const Dtype dt = std::is_same_v<T, float> ? kFloat32 : kFloat64;
  Tensor flipped = backend::new_buffer({g.C * g.Og * g.kh * g.kw}, dt);
  T* wf = static_cast<T*>(flipped.data_ptr());
  adjoint_weights(g, w, wf);
  conv_forward(f, grad, wf, bias, out);
  return true;
}

template <class T>
void conv_adjoint(const Geometry& g, const T* grad, const T* w, const T* bias, T* out) {
  if (adjoint_as_forward(g, grad, w, bias, out)) return;
  const int64_t K = g.K(), HWo = g.Ho * g.Wo, HW = g.H * g.W, rows = rows_per_block(g);
  const bool pointwise = g.pointwise();
  const bool parallel_inner = !split_images(g.N);
  for_images<T>(g.N, pointwise ? 0 : K * rows * g.Wo, [&](int64_t n0, int64_t n1, T* col) {
    for (int64_t n = n0; n < n1; ++n)
      for (int64_t gi = 0; gi < g.G; ++gi) {
        const T* gg = grad + (n * g.O + gi * g.Og) * HWo;  // (Og, Ho, Wo)
        const T* wg = w + gi * g.Og * K;                     // (Og, K)
        T* og = out + (n * g.C + gi * g.Cg) * HW;            // (Cg, H, W)
        for (int64_t c = 0; c < g.Cg; ++c)
          std::fill_n(og + c * HW, HW, bias ? bias[gi * g.Cg + c] : T(0));
        if (pointwise) {
          gemm<T>(true, false, K, HWo, g.Og, wg, K, gg, HWo, T(1), og, HW);
          continue;
        }
        for (int64_t y0 = 0; y0 < g.Ho; y0 += rows) {
          const int64_t y1 = std::min(g.Ho, y0 + rows), cols = (y1 - y0) * g.Wo;
          gemm<T>(true, false, K, cols, g.Og, wg, K, gg + y0 * g.Wo, HWo, T(0), col, cols);
          col2im(g, col, og, y0, y1, parallel_inner);
        }
      }
  });
}


// grad_weight_g (Og, K) = sum_n grad_g[n] (Og, Ho*Wo) @ col_g[n]^T. Threads that take runs of
// images accumulate into their own copy of grad_weight; the copies are summed at the end.
template <class T>
void conv_weight_grad(const Geometry& g, const T* grad, const T* in, T* gw) {
  // The flat kernel threads over images only: with fewer images than threads, threaded BLAS.
  const bool one_thread = get_num_threads() == 1 || omp_in_parallel();
  if (g.K() > kDirectMaxK && g.sh == 1 && g.sw == 1 && g.Og * g.K() <= kFlatMaxWeights &&
      (one_thread || split_images(g.N)))
    return conv_weight_grad_flat(g, grad, in, gw);
  const int64_t K = g.K(), HWo = g.Ho * g.Wo, rows = rows_per_block(g);
  const int64_t wsize = g.O * K;
  const bool pointwise = g.pointwise();
  const bool split = split_images(g.N);
  const int threads = split ? get_num_threads() : 1;
  const Dtype dt = std::is_same_v<T, float> ? kFloat32 : kFloat64;
  Tensor partial = backend::new_zeros({threads, wsize}, dt);
  T* parts = static_cast<T*>(partial.data_ptr());
  for_images<T>(g.N, pointwise ? 0 : K * rows * g.Wo, [&](int64_t n0, int64_t n1, T* col) {
    T* acc = parts + (split ? omp_get_thread_num() : 0) * wsize;
    for (int64_t n = n0; n < n1; ++n)
      for (int64_t gi = 0; gi < g.G; ++gi) {
        const T* gg = grad + (n * g.O + gi * g.Og) * HWo;
        const T* ig = in + (n * g.C + gi * g.Cg) * g.H * g.W;
        T* ag = acc + gi * g.Og * K;
        if (pointwise) {
          gemm<T>(false, true, g.Og, K, HWo, gg, HWo, ig, HWo, T(1), ag, K);
          continue;
        }
        for (int64_t y0 = 0; y0 < g.Ho; y0 += rows) {
          const int64_t y1 = std::min(g.Ho, y0 + rows), cols = (y1 - y0) * g.Wo;
          im2col(g, ig, col, cols, y0, y1, !split);
          gemm<T>(false, true, g.Og, K, cols, gg + y0 * g.Wo, HWo, col, cols, T(1), ag, K);
        }
      }
  });
  for (int64_t i = 0; i < wsize; ++i) {
    T s = parts[i];
    for (int t = 1; t < threads; ++t) s += parts[t * wsize + i];
    gw[i] = s;
  }
}

}  // namespace

// True when whole images go to threads (see the Note); false: images in turn, threaded BLAS.
bool split_images(int64_t N) {
  const int64_t t = get_num_threads();
  return t > 1 && !omp_in_parallel() && (N % t == 0 || N >= 4 * t);
}

void conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& out,
            const Conv2dParams& p) {
  const Geometry g = conv_geometry(input, weight, out, p);
  if (out.numel() == 0) return;
  if (is_reduced_conv(input)) return conv2d_reduced(input, weight, bias, out, p);
  dispatch<DtypeSet::Floating>(input.dtype(), "conv2d", [&]<class T>() {
    if constexpr (simd_type_v<T>)
      conv_forward<T>(g, static_cast<const T*>(input.data_ptr()),
                      static_cast<const T*>(weight.data_ptr()), data_or_null<T>(bias),
                      static_cast<T*>(out.data_ptr()));
    else
      fail("conv2d", "the kernel takes float32 or float64, got ", input.dtype());
  });
}

void conv2d_adjoint(const Tensor& grad, const Tensor& weight, const Tensor& bias, const Tensor& out,
                    const Conv2dParams& p) {
  const Geometry g = conv_geometry(out, weight, grad, p);
  if (out.numel() == 0) return;
  if (is_reduced_conv(grad)) return conv2d_adjoint_reduced(grad, weight, bias, out, p);
  dispatch<DtypeSet::Floating>(grad.dtype(), "conv_transpose2d", [&]<class T>() {
    if constexpr (simd_type_v<T>)
      conv_adjoint<T>(g, static_cast<const T*>(grad.data_ptr()),
                      static_cast<const T*>(weight.data_ptr()), data_or_null<T>(bias),
                      static_cast<T*>(out.data_ptr()));
    else
      fail("conv_transpose2d", "the kernel takes float32 or float64, got ", grad.dtype());
  });
}

void conv2d_weight_grad(const Tensor& grad, const Tensor& input, const Tensor& grad_weight,
                        const Conv2dParams& p) {
  const Geometry g = conv_geometry(input, grad_weight, grad, p);
  if (grad_weight.numel() == 0) return;
  if (is_reduced_conv(grad)) return conv2d_weight_grad_reduced(grad, input, grad_weight, p);
  dispatch<DtypeSet::Floating>(grad.dtype(), "conv2d_backward", [&]<class T>() {
    if constexpr (simd_type_v<T>) {
      T* gw = static_cast<T*>(grad_weight.data_ptr());
      if (grad.numel() == 0 || input.numel() == 0)
        std::fill_n(gw, grad_weight.numel(), T(0));
      else
        conv_weight_grad<T>(g, static_cast<const T*>(grad.data_ptr()),
                            static_cast<const T*>(input.data_ptr()), gw);
    } else {
      fail("conv2d_backward", "the kernel takes float32 or float64, got ", grad.dtype());
    }
  });
}

void conv2d_backward(const backend::ConvBackwardCall& c) {
  if (is_reduced_conv(c.grad) && conv2d_backward_reduced(c)) return;
  backend::conv2d_backward_in_parts(c);
}

void add_conv_kernels(backend::Backend& b) {
  b.conv = {.conv2d = &conv2d,
            .conv2d_adjoint = &conv2d_adjoint,
            .conv2d_weight_grad = &conv2d_weight_grad,
            .conv2d_backward = &conv2d_backward};
}

}  // namespace EMBER_CPU_NS
