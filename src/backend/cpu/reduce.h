// Reduction kernels: a "reducer" is {init, pre(x), combine(acc, v), finish(acc)} where pre and
// combine are written once for scalars and Vec<Acc> (Note [Inner loops] in vec.h).
//
// Layout handling (see Note [Reduction layouts] in reduce.cpp): the front end permutes the input
// to (kept dims..., reduced dims...) and hands the kernel one of two shapes of work:
//   runs: every output reduces R outer-reduced steps of a contiguous run of L elements;
//   rows: outputs are a contiguous row of J values and the reduction walks K rows (sum over dim 0).
//
// Note [Deterministic parallel sums]
// Every reduction of n items follows one fixed binary tree: a node of more than `leaf` items
// splits at split_point(n), and leaves are reduced serially. Serial code walks the tree
// recursively; parallel code evaluates the nodes at a depth chosen from n alone (never from the
// thread count) on whichever threads, then combines them in tree order. So results are the same
// bits for any number of threads, and rounding error grows with log n, not n (PyTorch's cascade
// sum has the accuracy but its results change with the thread count). The walks over outputs,
// outer runs and row blocks are compiled once, in reduce_walk.cpp (Note [One reduction walk] in
// reduce_engine.h); the templates here are the typed leaves they call.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "backend/cpu/half_convert.h"
#include "backend/cpu/level.h"
#include "backend/cpu/vec.h"
#include "core/convert.h"
#include "core/dispatch.h"
#include "core/parallel.h"

namespace EMBER_CPU_NS {

// ── the tree (Note [Deterministic parallel sums]) ──────────────────────
/// Where a node of n items splits: about the middle, rounded up to a multiple of `align` so that
/// SIMD leaves start aligned with the run.
inline int64_t split_point(int64_t n, int64_t align) {
  return (n / 2 + align - 1) / align * align;
}

/// leaf(begin, count) for nodes of at most `leaf` items, combined pairwise.
template <class Acc, class Leaf, class R>
Acc tree_reduce(int64_t begin, int64_t n, int64_t leaf, int64_t align, const Leaf& f,
                const R& r) {
  if (n <= leaf) return f(begin, n);
  const int64_t half = split_point(n, align);
  const Acc a = tree_reduce<Acc>(begin, half, leaf, align, f, r);
  return r.combine(a, tree_reduce<Acc>(begin + half, n - half, leaf, align, f, r));
}

// ── reducer hooks ───────────────────────────────────────────────────────
// A reducer whose accumulator is not a plain number (MinMax, Moments) supplies
//   lift<Acc>(x):   one input element as an accumulator (instead of pre(convert<Acc>(x)))
//   leaf(p, n):     its own kernel for a leaf of a contiguous run
//   rows(out, x, K, J, row_stride): its own column reduction
template <class Acc, class R, class In>
inline Acc lift(const R& r, In x) {
  if constexpr (requires { r.template lift<Acc>(x); }) return r.template lift<Acc>(x);
  else return r.pre(convert<Acc>(x));
}

// ── contiguous runs ─────────────────────────────────────────────────────
/// Leaves of reduce_run: 4096 elements (16 KiB of float), the size below which the error of a
/// SIMD-strided sum stays at a few ulps (each of the 64 float lanes adds 64 values).
inline constexpr int64_t kRunLeaf = 4096;

/// Bytes of accumulators in reduce_leaf: its slots are the same at every CPU level.
inline constexpr int kLeafSlotBytes = 256;

/// Reduces up to kRunLeaf contiguous values. Note [Sums independent of the CPU level]: element i
/// goes to slot i % S (S = 256 bytes of accumulators: 64 floats, 32 doubles), each slot adds its
/// elements in order, then slot s is combined with slot s + w for w = S/2, S/4, ..., 1. SIMD
/// vectors hold consecutive slots (SSE2 sixteen, AVX2 eight, AVX-512 four: enough independent
/// adds to cover their latency), and the last partial vector is built lane by lane, so the
/// arithmetic, and so the result, is the same bits at every level, as it is for any thread count
/// (Note [Deterministic parallel sums]). A slot adds at most 64 of a leaf's 4096 floats. Runs
/// shorter than S use eight slots the same way (rows of a few dozen elements stay vectorised),
/// runs under 8 add in order.
template <class Acc, class In, class R>
Acc reduce_leaf(const In* p, int64_t n, const R& r) {
  if constexpr (requires { r.leaf(p, n); }) return r.leaf(p, n);
  // float16/bfloat16 into float accumulators: the leaf widened first (exactly) and reduced as
  // float, so it takes the same slots as a float leaf, vectorised, instead of one serial chain
  // of adds (2.6x slower: a bfloat16 conv's grad_bias, a sum over (N, H, W)).
  if constexpr (std::is_same_v<Acc, float> && is_half_v<In> &&
                !requires { r.template lift<Acc>(p[0]); }) {
    if (n >= 8 && n <= kRunLeaf) {
      float wide[kRunLeaf];
      // bfloat16 widens inline (a shift the compiler vectorises): to_float's call costs more than
      // a short leaf's conversion (the 196-element planes of a 14x14 grad_bias); float16 needs
      // to_float's F16C path.
      if constexpr (std::is_same_v<In, BFloat16>)
        for (int64_t k = 0; k < n; ++k) wide[k] = float(p[k]);
      else
        to_float(p, wide, n);
      return reduce_leaf<Acc>(static_cast<const float*>(wide), n, r);
    }
  }
  if constexpr (simd_type_v<Acc> && std::is_same_v<In, Acc>) {
    constexpr int W = Vec<Acc>::size;
    constexpr int S = kLeafSlotBytes / int(sizeof(Acc)), A = S / W;
    static_assert(A >= 1 && A * W == S);
    if (n >= S) {
      Vec<Acc> a[A];
      for (auto& v : a) v = Vec<Acc>(r.template init<Acc>());
      int64_t i = 0;
      for (; i + S <= n; i += S)
        for (int k = 0; k < A; ++k) a[k] = r.combine(a[k], r.pre(Vec<Acc>::load(p + i + k * W)));
      int k = 0;
      for (; i + W <= n; i += W, ++k) a[k] = r.combine(a[k], r.pre(Vec<Acc>::load(p + i)));
      if (i < n) {  // the tail's slots, in a vector whose other lanes are the identity
        Acc last[W];
        for (int w = 0; w < W; ++w)
          last[w] = i + w < n ? lift<Acc>(r, p[i + w]) : r.template init<Acc>();
        a[k] = r.combine(a[k], Vec<Acc>::load(last));
      }
      for (int v = A / 2; v >= 1; v /= 2)  // slot s with slot s + v * W
        for (int j = 0; j < v; ++j) a[j] = r.combine(a[j], a[j + v]);
      Acc lanes[W];
      a[0].store(lanes);
      for (int w = W / 2; w >= 1; w /= 2)
        for (int j = 0; j < w; ++j) lanes[j] = r.combine(lanes[j], lanes[j + w]);
      return lanes[0];
    }
    if (n >= 8) {  // a short run: slot i % 8 (vectorised by the compiler at every level)
      Acc s[8];
      for (auto& v : s) v = r.template init<Acc>();
      int64_t i = 0;
      for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; ++k) s[k] = r.combine(s[k], lift<Acc>(r, p[i + k]));
      for (int k = 0; i < n; ++i, ++k) s[k] = r.combine(s[k], lift<Acc>(r, p[i]));
      return r.combine(r.combine(r.combine(s[0], s[4]), r.combine(s[2], s[6])),
                       r.combine(r.combine(s[1], s[5]), r.combine(s[3], s[7])));
    }
  }
  Acc acc = r.template init<Acc>();  // a few elements, or no SIMD type: in order
  for (int64_t i = 0; i < n; ++i) acc = r.combine(acc, lift<Acc>(r, p[i]));
  return acc;
}

/// Reduces n contiguous values: pairwise above kRunLeaf elements (error grows with log n).
template <class Acc, class In, class R>
Acc reduce_run(const In* p, int64_t n, const R& r) {
  return tree_reduce<Acc>(0, n, kRunLeaf, 64, [&](int64_t b, int64_t c) {
    return reduce_leaf<Acc>(p + b, c, r);
  }, r);
}

// ── rows (nothing contiguous reduced: sum over dim 0) ──────────────────
/// acc[j] = combine(acc[j], pre(row[j])) for j < J.
template <class Acc, class In, class R>
void accumulate_row(Acc* acc, const In* row, int64_t J, const R& r) {
  int64_t j = 0;
  if constexpr (simd_type_v<Acc> && std::is_same_v<In, Acc>) {
    constexpr int W = Vec<Acc>::size;
    for (; j + W <= J; j += W)
      r.combine(Vec<Acc>::load(acc + j), r.pre(Vec<Acc>::load(row + j))).store(acc + j);
  }
  for (; j < J; ++j) acc[j] = r.combine(acc[j], lift<Acc>(r, row[j]));
}

/// a[j] = combine(a[j], b[j]) for j < J.
template <class Acc, class R>
void combine_row(Acc* a, const Acc* b, int64_t J, const R& r) {
  int64_t j = 0;
  if constexpr (simd_type_v<Acc>) {
    constexpr int W = Vec<Acc>::size;
    for (; j + W <= J; j += W) r.combine(Vec<Acc>::load(a + j), Vec<Acc>::load(b + j)).store(a + j);
  }
  for (; j < J; ++j) a[j] = r.combine(a[j], b[j]);
}

// ── moments (var/std and their _mean) ──────────────────────────────────
/// Count, mean and sum of squared deviations of some values, in double (PyTorch's accumulation
/// type for var/std on CPU).
struct Moments {
  double n = 0, mean = 0, m2 = 0;
};

/// Chan et al.'s merge of two sets' moments (exact in exact arithmetic, stable in floating).
struct MomentsMerge {
  Moments combine(const Moments& a, const Moments& b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const double n = a.n + b.n, delta = b.mean - a.mean;
    return {n, a.mean + delta * (b.n / n), a.m2 + b.m2 + delta * delta * (a.n * b.n / n)};
  }
};

/// Moments of up to kRunLeaf contiguous values: the mean, then the squared deviations from it
/// (the two passes read the block from L1).
template <class In>
Moments moments_leaf(const In* p, int64_t n) {
  if (n == 0) return {};
  double s[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k) s[k] += double(convert<compute_t<In>>(p[i + k]));
  for (; i < n; ++i) s[0] += double(convert<compute_t<In>>(p[i]));
  const double mean = ((s[0] + s[1]) + (s[2] + s[3]) + ((s[4] + s[5]) + (s[6] + s[7]))) / double(n);
  double q[8] = {};
  for (i = 0; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k) {
      const double d = double(convert<compute_t<In>>(p[i + k])) - mean;
      q[k] += d * d;
    }
  for (; i < n; ++i) {
    const double d = double(convert<compute_t<In>>(p[i])) - mean;
    q[0] += d * d;
  }
  return {double(n), mean, (q[0] + q[1]) + (q[2] + q[3]) + ((q[4] + q[5]) + (q[6] + q[7]))};
}

template <class In>
Moments moments_run(const In* p, int64_t n) {
  return tree_reduce<Moments>(0, n, kRunLeaf, 64, [&](int64_t b, int64_t c) {
    return moments_leaf(p + b, c);
  }, MomentsMerge{});
}

/// Column moments: out[j] = moments of x[k * row_stride + j] over k < K, in blocks of 128 rows
/// (block means, then deviations from them) merged in order.
template <class In>
void moments_rows(Moments* out, const In* x, int64_t K, int64_t J, int64_t row_stride) {
  constexpr int64_t kBlock = 128, kTile = 256;
  const int64_t grain = std::max<int64_t>(64, kGrainSize / std::max<int64_t>(K, 1));
  parallel_for(0, J, grain, [&](int64_t j0, int64_t j1) {
    double sum[kTile], sq[kTile];
    for (int64_t t0 = j0; t0 < j1; t0 += kTile) {
      const int64_t w = std::min(kTile, j1 - t0);
      std::fill(out + t0, out + t0 + w, Moments{});
      for (int64_t k0 = 0; k0 < K; k0 += kBlock) {
        const int64_t n = std::min(kBlock, K - k0);
        std::fill(sum, sum + w, 0.0);
        std::fill(sq, sq + w, 0.0);
        for (int64_t k = k0; k < k0 + n; ++k) {
          const In* row = x + k * row_stride + t0;
          for (int64_t j = 0; j < w; ++j) sum[j] += double(convert<compute_t<In>>(row[j]));
        }
        for (int64_t j = 0; j < w; ++j) sum[j] /= double(n);
        for (int64_t k = k0; k < k0 + n; ++k) {
          const In* row = x + k * row_stride + t0;
          for (int64_t j = 0; j < w; ++j) {
            const double d = double(convert<compute_t<In>>(row[j])) - sum[j];
            sq[j] += d * d;
          }
        }
        for (int64_t j = 0; j < w; ++j)
          out[t0 + j] = MomentsMerge{}.combine(out[t0 + j], Moments{double(n), sum[j], sq[j]});
      }
    }
  });
}

}  // namespace EMBER_CPU_NS
