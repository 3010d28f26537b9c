// The SIMD sweeps every CPU normalisation is made of (norm.cpp: batch and group norm;
// norm_rows.cpp: layer and RMS norm): one run's moments, affine map, backward sums and input
// gradient, in float32/float64 or in bfloat16/float16 computed as float32 (Note [Reduced-precision
// norms]). Templates only; each kernel file instantiates what it uses.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include "backend/cpu/half_convert.h"
#include "backend/cpu/optional_data.h"
#include "backend/cpu/vec.h"
#include "backend/cpu/vec_bf16.h"
#include "core/convert.h"
#include "core/dispatch.h"

namespace EMBER_CPU_NS::norm_sweeps {

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
  if constexpr (is_half_v<U>)
    return buf;
  else
    return dst;
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

// A norm forward's operands as pointers: x and y in the storage dtype U, the statistics and the
// affine parameters in its compute type (mean, weight and bias null where undefined).
template <class U>
struct NormOperands {
  using T = compute_t<U>;
  const U* x;
  U* y;
  T* mean;
  T* rstd;
  const T* w;
  const T* b;
  NormOperands(const Tensor& x_, const Tensor& y_, const Tensor& mean_, const Tensor& rstd_,
               const Tensor& w_, const Tensor& b_)
      : x(x_.data_ptr<U>()), y(y_.data_ptr<U>()), mean(data_or_null<T>(mean_)),
        rstd(rstd_.data_ptr<T>()), w(data_or_null<T>(w_)), b(data_or_null<T>(b_)) {}
};

}  // namespace EMBER_CPU_NS::norm_sweeps
