// Reduction kernels: a "reducer" is {init, pre(x), combine(acc, v), finish(acc)} where pre and
// combine are written once for scalars and Vec<Acc> (Note [Inner loops] in vec.h).
//
// Layout handling (see Note [Reduction layouts] in reduce.cpp): the front end permutes the input
// to (kept dims..., reduced dims...) and hands the kernel one of two shapes of work:
//   runs: every output reduces R outer-reduced steps of a contiguous run of L elements;
//   rows: outputs are a contiguous row of J values and the reduction walks K rows (sum over dim 0).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>

#include "backend/cpu/parallel.h"
#include "backend/cpu/vec.h"
#include "core/convert.h"

namespace ember::cpu {

/// Reduces n contiguous values. Pairwise above 4096 elements (error grows with log n, as
/// PyTorch's cascade sum), with four independent SIMD accumulators below.
template <class Acc, class In, class R>
Acc reduce_run(const In* p, int64_t n, const R& r) {
  if (n > 4096) {
    const int64_t half = (n / 2 + 63) & ~int64_t(63);
    return r.combine(reduce_run<Acc>(p, half, r), reduce_run<Acc>(p + half, n - half, r));
  }
  Acc acc = r.template init<Acc>();
  int64_t i = 0;
  if constexpr (simd_type_v<Acc> && std::is_same_v<In, Acc>) {
    constexpr int W = Vec<Acc>::size;
    if (n >= 4 * W) {
      Vec<Acc> a0(acc), a1(acc), a2(acc), a3(acc);
      for (; i + 4 * W <= n; i += 4 * W) {
        a0 = r.combine(a0, r.pre(Vec<Acc>::load(p + i)));
        a1 = r.combine(a1, r.pre(Vec<Acc>::load(p + i + W)));
        a2 = r.combine(a2, r.pre(Vec<Acc>::load(p + i + 2 * W)));
        a3 = r.combine(a3, r.pre(Vec<Acc>::load(p + i + 3 * W)));
      }
      const Vec<Acc> v = r.combine(r.combine(a0, a1), r.combine(a2, a3));
      for (int k = 0; k < W; ++k) acc = r.combine(acc, v[k]);
    }
  }
  for (; i < n; ++i) acc = r.combine(acc, r.pre(convert<Acc>(p[i])));
  return acc;
}

/// Reduces n values `stride` elements apart.
template <class Acc, class In, class R>
Acc reduce_strided(const In* p, int64_t n, int64_t stride, const R& r) {
  Acc acc = r.template init<Acc>();
  for (int64_t i = 0; i < n; ++i) acc = r.combine(acc, r.pre(convert<Acc>(p[i * stride])));
  return acc;
}

/// acc[j] = combine(acc[j], pre(row[j])) for j < J.
template <class Acc, class In, class R>
void accumulate_row(Acc* acc, const In* row, int64_t J, const R& r) {
  int64_t j = 0;
  if constexpr (simd_type_v<Acc> && std::is_same_v<In, Acc>) {
    constexpr int W = Vec<Acc>::size;
    for (; j + W <= J; j += W)
      r.combine(Vec<Acc>::load(acc + j), r.pre(Vec<Acc>::load(row + j))).store(acc + j);
  }
  for (; j < J; ++j) acc[j] = r.combine(acc[j], r.pre(convert<Acc>(row[j])));
}

/// Column reduction: out[j] = finish(combine over k < K of pre(x[k * row_stride + j])).
/// Rows are summed in blocks of 128 and the block results combined, bounding rounding error.
template <class Out, class Acc, class In, class R>
void reduce_rows(Out* out, const In* x, int64_t K, int64_t J, int64_t row_stride, const R& r) {
  constexpr int64_t kBlock = 128;
  // Threads take disjoint column ranges (at least 64 columns each) so no merging is needed.
  const int64_t grain = std::max<int64_t>(64, kGrainSize / std::max<int64_t>(K, 1));
  parallel_for(0, J, grain, [&](int64_t j0, int64_t j1) {
    const int64_t w = j1 - j0;
    // Not std::vector: its bool specialisation has no contiguous bool storage.
    const auto total = std::make_unique<Acc[]>(size_t(w));
    const auto block = std::make_unique<Acc[]>(size_t(w));
    std::fill(total.get(), total.get() + w, r.template init<Acc>());
    for (int64_t k0 = 0; k0 < K; k0 += kBlock) {
      std::fill(block.get(), block.get() + w, r.template init<Acc>());
      for (int64_t k = k0; k < std::min(K, k0 + kBlock); ++k)
        accumulate_row(block.get(), x + k * row_stride + j0, w, r);
      for (int64_t j = 0; j < w; ++j) total[j] = r.combine(total[j], block[j]);
    }
    for (int64_t j = 0; j < w; ++j) out[j0 + j] = convert<Out>(r.finish(total[j]));
  });
}

}  // namespace ember::cpu
