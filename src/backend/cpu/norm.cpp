// CPU kernels of the normalisations (src/ops/norm.cpp): one sweep over memory for the statistics
// (Note [Chunked moments]), one for the affine normalisation, SIMD through Vec and parallel over
// channels, rows or groups; the backward passes in two sweeps (Notes [Fused batch norm backward],
// [Fused row norm backward], [Fused group norm backward]).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "backend/cpu/half_convert.h"
#include "backend/cpu/kernels.h"
#include "backend/cpu/optional_data.h"
#include "backend/cpu/vec.h"
#include "backend/cpu/vec_bf16.h"
#include "core/convert.h"
#include "core/dispatch.h"
#include "core/parallel.h"

namespace EMBER_CPU_NS {
namespace {

// Note [Chunked moments]
// Mean and variance in one sweep over memory that stays accurate when |mean| >> std: a chunk of
// at most kChunk elements (it sits in L1) is summed twice in SIMD registers of T — once for its
// mean c, once for the deviations d = x - c (whose sum corrects c) and their squares — and the
// chunks are merged in double with Chan's parallel formula.
constexpr int64_t kChunk = 2048;

struct Moments {
  double n = 0, mean = 0, m2 = 0;  // count, mean, sum of squared deviations
  void merge(double nb, double mean_b, double m2_b) {
    if (nb == 0) return;
    const double nt = n + nb, d = mean_b - mean;
    mean += d * nb / nt;
    m2 += m2_b + d * d * n * nb / nt;
    n = nt;
  }
  void merge(const Moments& o) { merge(o.n, o.mean, o.m2); }
  double var() const { return n > 0 ? m2 / n : std::numeric_limits<double>::quiet_NaN(); }
};

// Note [Reduced-precision norms]
// bfloat16/float16 activations (x, dy) are read and their outputs (y, dx) written directly, so
// the op allocates no float32 copy of them: each contiguous run of at most kChunk elements is
// widened into a float32 buffer on the stack (it stays in L1), the float32 code runs on the
// buffer, and the result is narrowed as it is stored. Runs start at multiples of kChunk (a
// multiple of every Vec width), so the float32 arithmetic and its order — the chunks of
// accumulate(), the SIMD body and scalar tail of every sweep — are those of the float32 kernel
// on a widened copy: results are bit-identical to widen → float32 kernel → narrow.
// bfloat16 skips the buffer on the sweeps that batch and group norm spend their time in (the
// moments, the affine map, the backward's sums and input gradient): their SIMD bodies widen and
// narrow it a vector at a time in registers (Note [bfloat16 in registers]), the same float32
// arithmetic in the same order, so the results stay bit-identical and the store to and reload
// from the buffer go. With the backward sums' accumulators (GradSums) and the moments' second
// chains, batch norm's forward + backward on one thread of a 2-core Zen 5 (AVX-512): 128x32x28x28
// bfloat16 2.29 -> 1.46 ms, float32 2.64 -> 2.25-2.43 ms; 128x64x14x14 1.62 -> 1.04 and
// 1.39 -> 1.13 ms. float16 keeps the buffer: widening it in registers needs F16C, which the
// baseline level lacks.
template <class U>
using compute_t = std::conditional_t<is_half_v<U>, float, U>;

// Storage the SIMD bodies read and write directly: float32, float64 and bfloat16.
template <class U>
inline constexpr bool kInRegisters = !std::is_same_v<U, Half>;

// p[0, n) as T for a sweep's scalar tail (n < one Vec): p itself, or p widened into buf. A
// bfloat16 tail then runs the float32 instantiation's own scalar code, so its arithmetic, and
// the compiler's contractions of it into FMAs, are the float32 kernel's.
template <class S, class T = compute_t<S>>
const T* tail_in(const S* p, int64_t n, T* buf) {
  if constexpr (std::is_same_v<S, T>) {
    return p;
  } else {
    for (int64_t k = 0; k < n; ++k) buf[k] = T(p[k]);
    return buf;
  }
}

// Elements handled per run: kChunk for the narrow types, the whole span for float32/float64.
template <class U>
inline constexpr int64_t kRun = is_half_v<U> ? kChunk : std::numeric_limits<int64_t>::max();

// p[0, n) as compute_t<U>: p itself, or p widened into buf (at least n elements).
template <class U>
const compute_t<U>* widened(const U* p, int64_t n, compute_t<U>* buf) {
  if constexpr (is_half_v<U>) {
    to_float(p, buf, n);
    return buf;
  } else {
    return p;
  }
}
// Where a run's output is computed: dst itself, or buf, which stored() then narrows into dst.
template <class U>
compute_t<U>* out_run(U* dst, compute_t<U>* buf) {
  if constexpr (is_half_v<U>) return buf; else return dst;
}
template <class U>
void stored(const compute_t<U>* run, U* dst, int64_t n) {
  if constexpr (is_half_v<U>) from_float(run, dst, n);
}
// A stack buffer for one run (empty for float32/float64, which need none).
template <class U>
using RunBuffer = std::array<compute_t<U>, is_half_v<U> ? size_t(kChunk) : 1>;

// (S: the storage read, float32, float64 or bfloat16; T: the arithmetic's type.)
template <class S, class T = compute_t<S>>
T vsum(const S* x, int64_t n) {
  constexpr int W = Vec<T>::size;
  Vec<T> a0(T(0)), a1(T(0));
  int64_t i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    a0 = a0 + load_vec(x + i);
    a1 = a1 + load_vec(x + i + W);
  }
  for (; i + W <= n; i += W) a0 = a0 + load_vec(x + i);
  T s = hsum(a0 + a1);
  for (; i < n; ++i) s += T(x[i]);
  return s;
}

// r += Σ (x - c) and q += Σ (x - c)² over x[0, n): accumulate's scalar tail (see tail_in).
template <class T>
[[gnu::noinline]] void deviation_tail(const T* x, int64_t n, T c, T& r, T& q) {
  for (int64_t i = 0; i < n; ++i) {
    const T d = x[i] - c;
    r += d;
    q += d * d;
  }
}

// Adds x[0, n) to m (Note [Chunked moments]).
template <class S, class T = compute_t<S>>
void accumulate(const S* x, int64_t n, Moments& m) {
  constexpr int W = Vec<T>::size;
  for (int64_t s = 0; s < n; s += kChunk) {
    const int64_t len = std::min(kChunk, n - s);
    const S* p = x + s;
    const T c = vsum(p, len) / T(len);
    // Two sums of each, over alternate vectors: one chain of FMAs was latency-bound.
    Vec<T> d1(T(0)), d2(T(0)), e1(T(0)), e2(T(0));
    int64_t i = 0;
    for (; i + 2 * W <= len; i += 2 * W) {
      const Vec<T> d = load_vec(p + i) - Vec<T>(c), e = load_vec(p + i + W) - Vec<T>(c);
      d1 = d1 + d;
      d2 = d2 + d * d;
      e1 = e1 + e;
      e2 = e2 + e * e;
    }
    for (; i + W <= len; i += W) {
      const Vec<T> d = load_vec(p + i) - Vec<T>(c);
      d1 = d1 + d;
      d2 = d2 + d * d;
    }
    T r = hsum(d1 + e1), q = hsum(d2 + e2);
    alignas(64) T t[W];
    deviation_tail(tail_in(p + i, len - i, t), len - i, c, r, q);
    const double dr = double(r), dn = double(len);
    m.merge(dn, double(c) + dr / dn, std::max(0.0, double(q) - dr * dr / dn));
  }
}

// Adds x[0, n) of any storage type to m, run by run (Note [Reduced-precision norms]).
template <class U>
void accumulate_any(const U* x, int64_t n, Moments& m) {
  if constexpr (kInRegisters<U>) {
    accumulate(x, n, m);
    return;
  }
  alignas(64) RunBuffer<U> buf;
  for (int64_t s = 0; s < n; s += std::min(n, kRun<U>))
    accumulate(widened(x + s, std::min(kRun<U>, n - s), buf.data()), std::min(kRun<U>, n - s), m);
}

// Sum of squares of x[0, n), chunks flushed to double (rms_norm).
template <class T>
double sum_squares(const T* x, int64_t n) {
  constexpr int W = Vec<T>::size;
  double total = 0;
  for (int64_t s = 0; s < n; s += kChunk) {
    const int64_t len = std::min(kChunk, n - s);
    const T* p = x + s;
    Vec<T> a(T(0));
    int64_t i = 0;
    for (; i + W <= len; i += W) {
      const Vec<T> v = Vec<T>::load(p + i);
      a = a + v * v;
    }
    T q = hsum(a);
    for (; i < len; ++i) q += p[i] * p[i];
    total += double(q);
  }
  return total;
}

// y[i] = x[i] * a + b (x, y in storage S; the scalar tail in T, see tail_in).
template <class T>
[[gnu::noinline]] void affine_tail(const T* x, T* y, int64_t n, T a, T b) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * a + b;
}
template <class S, class T>
requires simd_type_v<T>
void affine(const S* x, S* y, int64_t n, T a, T b) {
  constexpr int W = Vec<T>::size;
  int64_t i = 0;
  for (; i + W <= n; i += W) store_vec(load_vec(x + i) * Vec<T>(a) + Vec<T>(b), y + i);
  if constexpr (std::is_same_v<S, T>) {
    affine_tail(x + i, y + i, n - i, a, b);
  } else {
    alignas(64) T t[W];
    affine_tail(tail_in(x + i, n - i, t), t, n - i, a, b);
    for (int64_t j = 0; j < n - i; ++j) y[i + j] = S(t[j]);
  }
}

// y[i] = x[i] * a + b for x, y of any storage type, run by run.
template <class U, class T>
void affine_any(const U* x, U* y, int64_t n, T a, T b) {
  if constexpr (kInRegisters<U>) {
    affine(x, y, n, a, b);
    return;
  }
  alignas(64) RunBuffer<U> buf;
  for (int64_t s = 0; s < n; s += std::min(n, kRun<U>)) {
    const int64_t len = std::min(kRun<U>, n - s);
    T* out = out_run(y + s, buf.data());
    affine(widened(x + s, len, buf.data()), out, len, a, b);
    stored<U>(out, y + s, len);
  }
}

// y[i] = x[i] * a[i] + b[i].
template <class T>
void affine(const T* x, T* y, int64_t n, const T* a, const T* b) {
  constexpr int W = Vec<T>::size;
  int64_t i = 0;
  for (; i + W <= n; i += W)
    (Vec<T>::load(x + i) * Vec<T>::load(a + i) + Vec<T>::load(b + i)).store(y + i);
  for (; i < n; ++i) y[i] = x[i] * a[i] + b[i];
}

// y[i] = (x[i] - mean) * rstd * w[i] + b[i] (w or b null: 1 or 0) — layer_norm's row.
template <class T>
void normalize_row(const T* x, T* y, int64_t n, T mean, T rstd, const T* w, const T* b) {
  constexpr int W = Vec<T>::size;
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    Vec<T> v = (Vec<T>::load(x + i) - Vec<T>(mean)) * Vec<T>(rstd);
    if (w) v = v * Vec<T>::load(w + i);
    if (b) v = v + Vec<T>::load(b + i);
    v.store(y + i);
  }
  for (; i < n; ++i) {
    T v = (x[i] - mean) * rstd;
    if (w) v = v * w[i];
    if (b) v = v + b[i];
    y[i] = v;
  }
}

// Per-channel moments of x viewed as (N, C, S), contiguous.
// Note [Batch norm layouts]: with S >= kPlanarMin each (n, c) plane is a contiguous run that
// SIMD sweeps well, so planes are reduced in parallel and merged per channel; with short planes
// (S == 1 for (N, C) input) the tensor is read as N rows of K = C * S columns and reduced down
// the columns, SIMD across them, in blocks of rows that stay in L1.
constexpr int64_t kPlanarMin = backend::kNormPlanarMin;

template <class U>
std::vector<Moments> channel_moments(const U* x, int64_t N, int64_t C, int64_t S) {
  using T = compute_t<U>;
  std::vector<Moments> out(static_cast<size_t>(C));
  if (S >= kPlanarMin) {
    std::vector<Moments> planes(static_cast<size_t>(N * C));
    parallel_for(0, N * C, std::max<int64_t>(1, kGrainSize / S), [&](int64_t a, int64_t b) {
      for (int64_t p = a; p < b; ++p) accumulate_any(x + p * S, S, planes[size_t(p)]);
    });
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < C; ++c) out[size_t(c)].merge(planes[size_t(n * C + c)]);
    return out;
  }
  constexpr int W = Vec<T>::size;
  constexpr int64_t kCols = 8 * W, kRows = 64;
  const int64_t K = C * S;
  std::vector<Moments> cols(static_cast<size_t>(K));
  const int64_t blocks = (K + kCols - 1) / kCols;
  parallel_for(0, blocks, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, N * kCols)),
               [&](int64_t ba, int64_t bb) {
    alignas(64) T s1[kCols], d1[kCols], d2[kCols], wide[kCols];
    for (int64_t blk = ba; blk < bb; ++blk) {
      const int64_t k0 = blk * kCols, nk = std::min(kCols, K - k0);
      const int64_t nv = nk / W * W;  // SIMD part of the block; the rest is scalar
      for (int64_t r0 = 0; r0 < N; r0 += kRows) {
        const int64_t nr = std::min(kRows, N - r0);
        std::fill(s1, s1 + kCols, T(0));
        std::fill(d1, d1 + kCols, T(0));
        std::fill(d2, d2 + kCols, T(0));
        for (int64_t r = r0; r < r0 + nr; ++r) {
          const T* row = widened(x + r * K + k0, nk, wide);
          int64_t j = 0;
          for (; j < nv; j += W) (Vec<T>::load(s1 + j) + Vec<T>::load(row + j)).store(s1 + j);
          for (; j < nk; ++j) s1[j] += row[j];
        }
        for (int64_t j = 0; j < nk; ++j) s1[j] /= T(nr);  // the chunk's column means
        for (int64_t r = r0; r < r0 + nr; ++r) {
          const T* row = widened(x + r * K + k0, nk, wide);
          int64_t j = 0;
          for (; j < nv; j += W) {
            const Vec<T> d = Vec<T>::load(row + j) - Vec<T>::load(s1 + j);
            (Vec<T>::load(d1 + j) + d).store(d1 + j);
            (Vec<T>::load(d2 + j) + d * d).store(d2 + j);
          }
          for (; j < nk; ++j) {
            const T d = row[j] - s1[j];
            d1[j] += d;
            d2[j] += d * d;
          }
        }
        for (int64_t j = 0; j < nk; ++j) {
          const double dr = double(d1[j]), dn = double(nr);
          cols[size_t(k0 + j)].merge(dn, double(s1[j]) + dr / dn,
                                     std::max(0.0, double(d2[j]) - dr * dr / dn));
        }
      }
    }
  });
  for (int64_t k = 0; k < K; ++k) out[size_t(k / S)].merge(cols[size_t(k)]);
  return out;
}

// y = x * scale[c] + shift[c] for x viewed as (N, C, S) (Note [Batch norm layouts]).
template <class U, class T>
void channel_affine(const U* x, U* y, int64_t N, int64_t C, int64_t S, const T* scale,
                    const T* shift) {
  if (S >= kPlanarMin) {
    parallel_for(0, N * C, std::max<int64_t>(1, kGrainSize / S), [&](int64_t a, int64_t b) {
      for (int64_t p = a; p < b; ++p)
        affine_any(x + p * S, y + p * S, S, scale[p % C], shift[p % C]);
    });
    return;
  }
  const int64_t K = C * S;
  std::vector<T> a(static_cast<size_t>(K)), b(static_cast<size_t>(K));  // scale and shift per column
  for (int64_t k = 0; k < K; ++k) {
    a[size_t(k)] = scale[k / S];
    b[size_t(k)] = shift[k / S];
  }
  parallel_for(0, N, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(K, 1)),
               [&](int64_t r0, int64_t r1) {
                 alignas(64) RunBuffer<U> buf;
                 for (int64_t r = r0; r < r1; ++r)
                   for (int64_t s = 0; s < K; s += std::min(K, kRun<U>)) {
                     const int64_t len = std::min(kRun<U>, K - s);
                     T* out = out_run(y + r * K + s, buf.data());
                     affine(widened(x + r * K + s, len, buf.data()), out, len, a.data() + s,
                            b.data() + s);
                     stored<U>(out, y + r * K + s, len);
                   }
               });
}

// The running sums of Σ g and Σ g (x - mean) in SIMD registers: two of each, over alternate
// vectors (one chain of FMAs bounded the loop by its latency). Runs keep the alternation: their
// lengths are multiples of two vectors but for the last (kChunk is).
template <class T>
struct GradSums {
  static_assert(kChunk % (2 * Vec<T>::size) == 0, "a run must keep the vectors' alternation");
  Vec<T> g[2] = {Vec<T>(T(0)), Vec<T>(T(0))}, gd[2] = {Vec<T>(T(0)), Vec<T>(T(0))};
};

// The SIMD body of Σ g and Σ g (x - mean) over x[0, n) with g = dy w (w null: g = dy), added to
// sums; returns where the scalar tail starts. Out of line, as is the tail, so that the float32
// and the bfloat16/float16 sweeps run the same machine code: inlined into each, the compiler may
// contract a * b + c into an FMA in one and not the other, which changes the last bit
// (Note [Reduced-precision norms]). (x and dy in storage S: float32, float64 or bfloat16,
// widened in registers; T = compute_t<S>.)
template <class S, class T = compute_t<S>>
[[gnu::noinline]] int64_t grad_sums_body(const S* x, const S* dy, const T* w, int64_t n, T mean,
                                         GradSums<T>& sums) {
  constexpr int W = Vec<T>::size;
  // In locals: through the reference GCC kept the sums in memory (w might alias them), a
  // store-to-load round trip per vector.
  Vec<T> g0 = sums.g[0], g1 = sums.g[1], d0 = sums.gd[0], d1 = sums.gd[1];
  const auto add = [&](int64_t at, Vec<T>& sg, Vec<T>& sd) {
    Vec<T> g = load_vec(dy + at);
    if (w) g = g * Vec<T>::load(w + at);
    sg = sg + g;
    sd = sd + g * (load_vec(x + at) - Vec<T>(mean));
  };
  int64_t i = 0;
  for (; i + 2 * W <= n; i += 2 * W) add(i, g0, d0), add(i + W, g1, d1);
  for (; i + W <= n; i += W) add(i, g0, d0);
  sums = {{g0, g1}, {d0, d1}};
  return i;
}
template <class T>
[[gnu::noinline]] std::pair<double, double> grad_sums_tail(const T* x, const T* dy, const T* w,
                                                           int64_t i, int64_t n, T mean,
                                                           const GradSums<T>& sums) {
  T sa = hsum(sums.g[0] + sums.g[1]), sb = hsum(sums.gd[0] + sums.gd[1]);
  for (; i < n; ++i) {
    const T g = w ? dy[i] * w[i] : dy[i];
    sa += g;
    sb += g * (x[i] - mean);
  }
  return {double(sa), double(sb)};
}

// Σ g and Σ g (x - mean), g = dy w (w null: dy), over x[0, n) in the compute type.
template <class T>
std::pair<double, double> run_grad_sums(const T* x, const T* dy, const T* w, int64_t n, T mean) {
  GradSums<T> sums;
  const int64_t i = grad_sums_body(x, dy, w, n, mean, sums);
  return grad_sums_tail(x, dy, w, i, n, mean, sums);
}

// Σ g and Σ g (x - mean), g = dy w (w null: dy), over one contiguous plane or row, in SIMD
// registers of T. The runs' lengths are multiples of the Vec width but for the last, whose scalar
// tail is added after the horizontal sums, as in one sweep (Note [Reduced-precision norms]).
template <class U, class T = compute_t<U>>
std::pair<double, double> plane_grad_sums(const U* x, const U* dy, const T* w, int64_t n, T mean) {
  GradSums<T> sums;
  if constexpr (kInRegisters<U>) {
    const int64_t i = grad_sums_body(x, dy, w, n, mean, sums);
    alignas(64) T xt[Vec<T>::size], gt[Vec<T>::size];
    return grad_sums_tail(tail_in(x + i, n - i, xt), tail_in(dy + i, n - i, gt), w ? w + i : w, 0,
                          n - i, mean, sums);
  }
  alignas(64) RunBuffer<U> xbuf, gbuf;
  const T* xr = nullptr;
  const T* gr = nullptr;
  const T* wr = nullptr;
  int64_t i = 0, len = 0;
  for (int64_t s = 0; s < n; s += std::min(n, kRun<U>)) {
    len = std::min(kRun<U>, n - s);
    xr = widened(x + s, len, xbuf.data());
    gr = widened(dy + s, len, gbuf.data());
    wr = w ? w + s : w;
    i = grad_sums_body(xr, gr, wr, len, mean, sums);
  }
  return grad_sums_tail(xr, gr, wr, i, len, mean, sums);
}

// dx = (g - (x - mean) k - gm) sc over one run, g = dy w[i], or dy gs where w is null: the input
// gradient of every norm given its per-row (per-channel, per-group) constants. dx may be dy.
// (x, dy and dx in storage S, widened and narrowed in registers, T = compute_t<S>; the scalar
// tail in T, see tail_in.)
template <class T>
[[gnu::noinline]] void grad_input_tail(const T* x, const T* dy, const T* w, T gs, T* dx, int64_t n,
                                       T mean, T k, T gm, T sc) {
  for (int64_t i = 0; i < n; ++i) dx[i] = (dy[i] * (w ? w[i] : gs) - (x[i] - mean) * k - gm) * sc;
}
template <class S, class T = compute_t<S>>
[[gnu::noinline]] void grad_input_run(const S* x, const S* dy, const std::type_identity_t<T>* w,
                                      std::type_identity_t<T> gs, S* dx, int64_t n, T mean, T k,
                                      T gm, T sc) {
  constexpr int W = Vec<T>::size;
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    const Vec<T> g = load_vec(dy + i) * (w ? Vec<T>::load(w + i) : Vec<T>(gs));
    const Vec<T> d = load_vec(x + i) - Vec<T>(mean);
    store_vec((g - d * Vec<T>(k) - Vec<T>(gm)) * Vec<T>(sc), dx + i);
  }
  if constexpr (std::is_same_v<S, T>) {
    grad_input_tail(x + i, dy + i, w ? w + i : w, gs, dx + i, n - i, mean, k, gm, sc);
  } else {
    alignas(64) T xt[W], gt[W];
    grad_input_tail(tail_in(x + i, n - i, xt), tail_in(dy + i, n - i, gt), w ? w + i : w, gs, gt,
                    n - i, mean, k, gm, sc);
    for (int64_t j = 0; j < n - i; ++j) dx[i + j] = S(gt[j]);
  }
}

// Note [Fused batch norm backward]
// The composite formula below reads the activations about eight times; a CNN's step spends a
// large share of its time there. For contiguous planes (Note [Batch norm layouts]) and no
// create_graph, two sweeps do it: per-plane sums of dy and dy (x - mean), merged per channel in
// double, then dx = (dy - (x - mean) k - Σdy / M) invstd w with k = Σdy(x - mean) invstd² / M —
// PyTorch's CPU kernel's form.
// plane_grad_sums of each of the P contiguous planes of S elements, about plane p's mean(p).
template <class U, class MeanOf, class T = compute_t<U>>
std::vector<std::pair<double, double>> planes_grad_sums(const U* x, const U* dy, int64_t P,
                                                        int64_t S, const MeanOf& mean_of) {
  std::vector<std::pair<double, double>> planes(static_cast<size_t>(P));
  parallel_for(0, P, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(S, 1)),
               [&](int64_t a, int64_t b) {
                 for (int64_t p = a; p < b; ++p)
                   planes[size_t(p)] =
                       plane_grad_sums(x + p * S, dy + p * S, (const T*)nullptr, S, mean_of(p));
               });
  return planes;
}

// The constants of grad_input_run for one plane.
template <class T>
struct PlaneGrad {
  T mean, k, gm, sc, gs;
};

// grad_input_run over each of the P contiguous planes of S elements with constants(p).
template <class U, class Constants, class T = compute_t<U>>
void planes_grad_input(const U* x, const U* dy, U* gi, int64_t P, int64_t S,
                       const Constants& constants) {
  parallel_for(0, P, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(S, 1)),
               [&](int64_t a, int64_t b) {
    alignas(64) RunBuffer<U> xbuf, gbuf;
    for (int64_t p = a; p < b; ++p) {
      const PlaneGrad<T> q = constants(p);
      if constexpr (kInRegisters<U>) {
        grad_input_run(x + p * S, dy + p * S, (const T*)nullptr, q.gs, gi + p * S, S, q.mean, q.k,
                       q.gm, q.sc);
        continue;
      }
      for (int64_t s = 0; s < S; s += std::min(S, kRun<U>)) {
        const int64_t len = std::min(kRun<U>, S - s), off = p * S + s;
        const T* xp = widened(x + off, len, xbuf.data());
        const T* gp = widened(dy + off, len, gbuf.data());
        T* op = out_run(gi + off, gbuf.data());  // each element of gp is read before written
        grad_input_run(xp, gp, (const T*)nullptr, q.gs, op, len, q.mean, q.k, q.gm, q.sc);
        stored<U>(op, gi + off, len);
      }
    }
  });
}

template <class U, class T = compute_t<U>>
void batch_norm_backward_planar(const U* x, const U* dy, U* gi, int64_t N, int64_t C, int64_t S,
                                const T* mean, const T* invstd, const T* w, bool training,
                                T* gw, T* gb) {
  std::vector<double> sum_dy(static_cast<size_t>(C)), dot(static_cast<size_t>(C));
  if (training || gw || gb) {
    const auto planes = planes_grad_sums(x, dy, N * C, S, [&](int64_t p) { return mean[p % C]; });
    for (int64_t p = 0; p < N * C; ++p) {
      sum_dy[size_t(p % C)] += planes[size_t(p)].first;
      dot[size_t(p % C)] += planes[size_t(p)].second;
    }
  }
  for (int64_t c = 0; c < C; ++c) {
    if (gw) gw[c] = T(dot[size_t(c)] * double(invstd[c]));
    if (gb) gb[c] = T(sum_dy[size_t(c)]);
  }
  if (!gi) return;
  const double M = double(N * S);
  std::vector<PlaneGrad<T>> q(static_cast<size_t>(C));
  for (int64_t c = 0; c < C; ++c) {
    const double is = double(invstd[c]);
    q[size_t(c)] = {mean[c], training ? T(dot[size_t(c)] * is * is / M) : T(0),
                    training ? T(sum_dy[size_t(c)] / M) : T(0), T(is * (w ? double(w[c]) : 1.0)),
                    T(1)};
  }
  planes_grad_input(x, dy, gi, N * C, S, [&](int64_t p) { return q[size_t(p % C)]; });
}

// Note [Fused group norm backward]
// batch_norm's plan per (n, group) instead of per channel: per-plane sums of dy and dy (x - mean)
// give the weight's and bias's gradients per channel (summed over n) and, weighted by w[c] and
// summed over the group's channels, Σ g and Σ g (x - mean) for g = dy w; then
// dx = (dy w[c] - (x - mean) k - Σg / (D S)) rstd with k = Σ g (x - mean) rstd² / (D S).
template <class U, class T = compute_t<U>>
void group_norm_backward_planes(const U* x, const U* dy, U* gi, int64_t N, int64_t C, int64_t S,
                                int64_t G, const T* mean, const T* rstd, const T* w, T* gw,
                                T* gb) {
  const int64_t D = C / G;
  const auto planes =
      planes_grad_sums(x, dy, N * C, S, [&](int64_t p) { return mean[p / C * G + p % C / D]; });
  std::vector<double> sum_dy(static_cast<size_t>(C)), dot(static_cast<size_t>(C));
  std::vector<double> group_g(static_cast<size_t>(N * G)), group_dot(static_cast<size_t>(N * G));
  for (int64_t p = 0; p < N * C; ++p) {
    const int64_t c = p % C, ng = p / C * G + c / D;
    const double wc = w ? double(w[c]) : 1.0;
    sum_dy[size_t(c)] += planes[size_t(p)].first;
    dot[size_t(c)] += planes[size_t(p)].second * double(rstd[ng]);
    group_g[size_t(ng)] += wc * planes[size_t(p)].first;
    group_dot[size_t(ng)] += wc * planes[size_t(p)].second;
  }
  for (int64_t c = 0; c < C; ++c) {
    if (gw) gw[c] = T(dot[size_t(c)]);
    if (gb) gb[c] = T(sum_dy[size_t(c)]);
  }
  if (!gi) return;
  const double M = double(D * S);
  planes_grad_input(x, dy, gi, N * C, S, [&](int64_t p) {
    const int64_t c = p % C, ng = p / C * G + c / D;
    const double rs = double(rstd[ng]);
    return PlaneGrad<T>{mean[ng], T(group_dot[size_t(ng)] * rs * rs / M),
                        T(group_g[size_t(ng)] / M), T(rs), w ? w[c] : T(1)};
  });
}

// gw[i] += dy[i] (x[i] - mean) rstd and gb[i] += dy[i] over one run (either null: skipped).
template <class T>
[[gnu::noinline]] void param_grads_run(const T* x, const T* dy, int64_t n, T mean, T rstd, T* gw,
                                       T* gb) {
  constexpr int W = Vec<T>::size;
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    const Vec<T> g = Vec<T>::load(dy + i);
    if (gw)
      (Vec<T>::load(gw + i) + g * ((Vec<T>::load(x + i) - Vec<T>(mean)) * Vec<T>(rstd)))
          .store(gw + i);
    if (gb) (Vec<T>::load(gb + i) + g).store(gb + i);
  }
  for (; i < n; ++i) {
    if (gw) gw[i] += dy[i] * ((x[i] - mean) * rstd);
    if (gb) gb[i] += dy[i];
  }
}

// Note [Fused row norm backward]
// layer_norm's and rms_norm's backward for M rows of N, PyTorch's CPU kernel's plan: per row, one
// sweep for Σ g and Σ g d (g = dy w, d = x - mean, with mean 0 and no Σ g term for rms_norm) and
// one that writes dx = (g - d k - Σg / N) rstd, k = Σ g d rstd² / N, while adding dy d rstd and dy
// to the weight's and bias's gradients. Those are summed over rows in per-block float32 (T)
// accumulators — a split of the rows fixed by the shape alone, at most kMaxRowBlocks blocks, so
// the sums do not depend on the thread count (Note [Deterministic parallel sums]) — then over the
// blocks in order. A row (a few KiB) stays in L1/L2 between its two sweeps, so the activations are read
// about twice from memory instead of the composite formula's dozen passes and float32 copies.
template <class U, class T = compute_t<U>>
void row_norm_backward(const U* x, const U* dy, U* dx, int64_t M, int64_t N, const T* mean,
                       const T* rstd, const T* w, T* gw, T* gb) {
  constexpr int64_t kMaxRowBlocks = 64;  // room for up to 64 threads; 64 · 2N floats of sums
  const int64_t blocks = std::clamp<int64_t>(M * N / kGrainSize, 1,
                                             std::clamp<int64_t>(M, 1, kMaxRowBlocks));
  const bool params = gw || gb, one_run = N <= kRun<U>;
  // (blocks, 2, N): each block's gw and gb accumulators.
  std::vector<T> acc(params ? size_t(blocks * 2 * N) : 0, T(0));
  parallel_for(0, blocks, 1, [&](int64_t b0, int64_t b1) {
    alignas(64) RunBuffer<U> xbuf, gbuf;
    for (int64_t blk = b0; blk < b1; ++blk) {
      T* aw = gw ? acc.data() + blk * 2 * N : nullptr;
      T* ab = gb ? acc.data() + blk * 2 * N + N : nullptr;
      for (int64_t r = blk * M / blocks; r < (blk + 1) * M / blocks; ++r) {
        const U* xr = x + r * N;
        const U* gr = dy + r * N;
        const T mu = mean ? mean[r] : T(0), rs = rstd[r];
        // A row of one run is widened once, for both sweeps (the same sums as plane_grad_sums).
        const T* x1 = one_run ? widened(xr, N, xbuf.data()) : nullptr;
        const T* g1 = one_run ? widened(gr, N, gbuf.data()) : nullptr;
        T k = T(0), gm = T(0);
        if (dx) {
          const auto [sum_g, dot] =
              one_run ? run_grad_sums(x1, g1, w, N, mu) : plane_grad_sums(xr, gr, w, N, mu);
          k = T(dot * double(rs) * double(rs) / double(N));
          gm = mean ? T(sum_g / double(N)) : T(0);
        }
        for (int64_t s = 0; s < N; s += std::min(N, kRun<U>)) {
          const int64_t len = std::min(kRun<U>, N - s);
          const T* xp = one_run ? x1 : widened(xr + s, len, xbuf.data());
          const T* gp = one_run ? g1 : widened(gr + s, len, gbuf.data());
          if (params) param_grads_run(xp, gp, len, mu, rs, aw ? aw + s : aw, ab ? ab + s : ab);
          if (!dx) continue;
          T* op = out_run(dx + r * N + s, gbuf.data());  // gp's elements are read before written
          grad_input_run(xp, gp, w ? w + s : w, T(1), op, len, mu, k, gm, rs);
          stored<U>(op, dx + r * N + s, len);
        }
      }
    }
  });
  for (int64_t i = 0; params && i < N; ++i) {
    T sw = T(0), sb = T(0);
    for (int64_t blk = 0; blk < blocks; ++blk) {
      sw += acc[size_t(blk * 2 * N + i)];
      sb += acc[size_t(blk * 2 * N + N + i)];
    }
    if (gw) gw[i] = sw;
    if (gb) gb[i] = sb;
  }
}

// ── the entries (backend/norm_kernels.h): x, dy and y/dx in float32/float64, or bfloat16/float16
// read and written directly (Note [Reduced-precision norms]); weight, bias, statistics in T ──

void batch_norm_stats_kernel(const Tensor& x, const Tensor& mean, const Tensor& var) {
  const int64_t N = x.size(0), C = x.size(1), S = x.numel() / std::max<int64_t>(1, N * C);
  dispatch<DtypeSet::Floating>(x.dtype(), "batch_norm", [&]<class U>() {
    if constexpr (simd_type_v<U> || is_half_v<U>) {
      const std::vector<Moments> m = channel_moments(x.data_ptr<U>(), N, C, S);
      double* mp = mean.data_ptr<double>();
      double* vp = var.data_ptr<double>();
      for (int64_t c = 0; c < C; ++c) {
        mp[c] = m[size_t(c)].mean;
        vp[c] = m[size_t(c)].var();
      }
    }
  });
}

void batch_norm_kernel(const Tensor& y, const Tensor& save_mean, const Tensor& save_invstd,
                       const Tensor& x, const Tensor& weight, const Tensor& bias,
                       const Tensor& mean_t, const Tensor& var_t, double eps) {
  const int64_t N = x.size(0), C = x.size(1), S = x.numel() / std::max<int64_t>(1, N * C);
  dispatch<DtypeSet::Floating>(x.dtype(), "batch_norm", [&]<class U>() {
    if constexpr (simd_type_v<U> || is_half_v<U>) {
      using T = compute_t<U>;
      const double* mean = mean_t.data_ptr<double>();
      const double* var = var_t.data_ptr<double>();
      const T* wp = data_or_null<T>(weight);
      const T* bp = data_or_null<T>(bias);
      std::vector<T> scale(static_cast<size_t>(C)), shift(static_cast<size_t>(C));
      T* sm = save_mean.data_ptr<T>();
      T* si = save_invstd.data_ptr<T>();
      for (int64_t c = 0; c < C; ++c) {
        const double invstd = 1.0 / std::sqrt(var[c] + eps);
        sm[c] = T(mean[c]);
        si[c] = T(invstd);
        const double a = invstd * (wp ? double(wp[c]) : 1.0);
        scale[size_t(c)] = T(a);
        shift[size_t(c)] = T((bp ? double(bp[c]) : 0.0) - mean[c] * a);
      }
      channel_affine(x.data_ptr<U>(), y.data_ptr<U>(), N, C, S, scale.data(), shift.data());
    }
  });
}

void batch_norm_backward_kernel(const Tensor& gi, const Tensor& gw, const Tensor& gb,
                                const Tensor& x, const Tensor& dy, const Tensor& mean,
                                const Tensor& invstd, const Tensor& w, bool training) {
  const int64_t N = x.size(0), C = x.size(1), S = x.numel() / std::max<int64_t>(1, N * C);
  dispatch<DtypeSet::Floating>(x.dtype(), "batch_norm_backward", [&]<class U>() {
    using T = compute_t<U>;
    if constexpr (simd_type_v<U> || is_half_v<U>)
      batch_norm_backward_planar<U>(x.data_ptr<U>(), dy.data_ptr<U>(), data_or_null<U>(gi), N, C, S,
                                    mean.data_ptr<T>(), invstd.data_ptr<T>(), data_or_null<T>(w),
                                    training, data_or_null<T>(gw), data_or_null<T>(gb));
  });
}

void layer_norm_kernel(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                       const Tensor& w, const Tensor& b, int64_t M, int64_t N, double eps) {
  dispatch<DtypeSet::Floating>(x.dtype(), "layer_norm", [&]<class U>() {
    if constexpr (simd_type_v<U> || is_half_v<U>) {
      using T = compute_t<U>;
      const U* xp = x.data_ptr<U>();
      U* yp = y.data_ptr<U>();
      T* mp = mean.data_ptr<T>();
      T* rp = rstd.data_ptr<T>();
      const T* wp = data_or_null<T>(w);
      const T* bp = data_or_null<T>(b);
      parallel_for(0, M, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(N, 1)),
                   [&](int64_t r0, int64_t r1) {
                     alignas(64) RunBuffer<U> buf;
                     for (int64_t r = r0; r < r1; ++r) {
                       Moments m;
                       accumulate_any(xp + r * N, N, m);
                       const T mu = T(m.mean), rs = T(1.0 / std::sqrt(m.var() + eps));
                       mp[r] = mu;
                       rp[r] = rs;
                       for (int64_t s = 0; s < N; s += std::min(N, kRun<U>)) {
                         const int64_t len = std::min(kRun<U>, N - s), off = r * N + s;
                         T* out = out_run(yp + off, buf.data());
                         normalize_row(widened(xp + off, len, buf.data()), out, len, mu, rs,
                                       wp ? wp + s : wp, bp ? bp + s : bp);
                         stored<U>(out, yp + off, len);
                       }
                     }
                   });
    }
  });
}

void layer_norm_backward_kernel(const Tensor& gi, const Tensor& gw, const Tensor& gb,
                                const Tensor& x, const Tensor& dy, const Tensor& mean,
                                const Tensor& rstd, const Tensor& w, int64_t M, int64_t N) {
  dispatch<DtypeSet::Floating>(x.dtype(), "layer_norm_backward", [&]<class U>() {
    using T = compute_t<U>;
    if constexpr (simd_type_v<U> || is_half_v<U>)
      row_norm_backward<U>(x.data_ptr<U>(), dy.data_ptr<U>(), data_or_null<U>(gi), M, N,
                           data_or_null<T>(mean), rstd.data_ptr<T>(), data_or_null<T>(w),
                           data_or_null<T>(gw), data_or_null<T>(gb));
  });
}

void rms_norm_kernel(const Tensor& y, const Tensor& rstd, const Tensor& x, const Tensor& w,
                     int64_t M, int64_t N, double e) {
  dispatch<DtypeSet::Floating>(x.dtype(), "rms_norm", [&]<class U>() {
    if constexpr (simd_type_v<U> || is_half_v<U>) {
      using T = compute_t<U>;
      const U* xp = x.data_ptr<U>();
      U* yp = y.data_ptr<U>();
      T* rp = rstd.data_ptr<T>();
      const T* wp = data_or_null<T>(w);
      parallel_for(0, M, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(N, 1)),
                   [&](int64_t r0, int64_t r1) {
                     alignas(64) RunBuffer<U> buf;
                     for (int64_t r = r0; r < r1; ++r) {
                       // Runs of kChunk are sum_squares's chunks: the same sum as in one call.
                       double sq = 0;
                       for (int64_t s = 0; s < N; s += std::min(N, kRun<U>)) {
                         const int64_t len = std::min(kRun<U>, N - s);
                         sq += sum_squares(widened(xp + r * N + s, len, buf.data()), len);
                       }
                       const double ms = N > 0 ? sq / double(N) : NAN;
                       const T rs = T(1.0 / std::sqrt(ms + e));
                       rp[r] = rs;
                       for (int64_t s = 0; s < N; s += std::min(N, kRun<U>)) {
                         const int64_t len = std::min(kRun<U>, N - s), off = r * N + s;
                         T* out = out_run(yp + off, buf.data());
                         normalize_row(widened(xp + off, len, buf.data()), out, len, T(0), rs,
                                       wp ? wp + s : wp, (const T*)nullptr);
                         stored<U>(out, yp + off, len);
                       }
                     }
                   });
    }
  });
}

void group_norm_kernel(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                       const Tensor& w, const Tensor& b, int64_t G, double eps) {
  const int64_t N = x.size(0), C = x.size(1);
  const int64_t S = N * C > 0 ? x.numel() / (N * C) : 0, D = C / G;  // D channels a group
  dispatch<DtypeSet::Floating>(x.dtype(), "group_norm", [&]<class U>() {
    if constexpr (simd_type_v<U> || is_half_v<U>) {
      using T = compute_t<U>;
      const U* xp = x.data_ptr<U>();
      U* yp = y.data_ptr<U>();
      T* mp = mean.data_ptr<T>();
      T* rp = rstd.data_ptr<T>();
      const T* wp = data_or_null<T>(w);
      const T* bp = data_or_null<T>(b);
      const int64_t len = D * S;  // one (n, g) group is a contiguous run
      parallel_for(0, N * G, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(len, 1)),
                   [&](int64_t a, int64_t e) {
                     for (int64_t ng = a; ng < e; ++ng) {
                       Moments m;
                       accumulate_any(xp + ng * len, len, m);
                       const double rs = 1.0 / std::sqrt(m.var() + eps);
                       mp[ng] = T(m.mean);
                       rp[ng] = T(rs);
                       const int64_t g = ng % G;
                       for (int64_t d = 0; d < D; ++d) {
                         const int64_t c = g * D + d;
                         const double sc = rs * (wp ? double(wp[c]) : 1.0);
                         const double sh = (bp ? double(bp[c]) : 0.0) - m.mean * sc;
                         const int64_t off = ng * len + d * S;
                         affine_any(xp + off, yp + off, S, T(sc), T(sh));
                       }
                     }
                   });
    }
  });
}

void group_norm_backward_kernel(const Tensor& gi, const Tensor& gw, const Tensor& gb,
                                const Tensor& x, const Tensor& dy, const Tensor& mean,
                                const Tensor& rstd, const Tensor& w, int64_t G) {
  const int64_t N = x.size(0), C = x.size(1), S = N * C > 0 ? x.numel() / (N * C) : 0;
  dispatch<DtypeSet::Floating>(x.dtype(), "group_norm_backward", [&]<class U>() {
    using T = compute_t<U>;
    if constexpr (simd_type_v<U> || is_half_v<U>)
      group_norm_backward_planes<U>(x.data_ptr<U>(), dy.data_ptr<U>(), data_or_null<U>(gi), N, C, S,
                                    G, mean.data_ptr<T>(), rstd.data_ptr<T>(), data_or_null<T>(w),
                                    data_or_null<T>(gw), data_or_null<T>(gb));
  });
}

}  // namespace

void add_norm_kernels(backend::Backend& b) {
  b.norm.batch_norm_stats = &batch_norm_stats_kernel;
  b.norm.batch_norm = &batch_norm_kernel;
  b.norm.batch_norm_backward = &batch_norm_backward_kernel;
  b.norm.layer_norm = &layer_norm_kernel;
  b.norm.layer_norm_backward = &layer_norm_backward_kernel;
  b.norm.rms_norm = &rms_norm_kernel;
  b.norm.group_norm = &group_norm_kernel;
  b.norm.group_norm_backward = &group_norm_backward_kernel;
}

}  // namespace EMBER_CPU_NS
