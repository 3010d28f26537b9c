// The sort kernel's work (sort, topk and the selections: sort_launch.h's Pick), for the device
// (sort.cu) and the CPU emulation (sort_emulation.cpp) alike: one block per line runs a bitonic
// sorting network over the line's (value, index) pairs in place in the outputs, one b.phase per
// stage (Note [Block programs]); the block's leader then picks a selection's position from the
// sorted line.
//
// Note [Bitonic sort of any length]
// The network is the form whose comparators all put the smaller element first: each merge of
// two sorted runs of k / 2 first compares i with its mirror in the run of k (i ^ (k - 1)), then
// half-cleans with i ^ j for j = k / 4 ... 1. Over n elements it runs as if padded to a power of
// two with elements larger than all: a comparator that reaches past n would leave the padding
// where it is, so it is skipped, and no storage beyond n is needed. Pairs are ordered by value
// (NaN largest, as the CPU's comparators), then by index: the result is the stable sort,
// PyTorch's stable=true, and one of the orders stable=false allows. The network takes
// n log² n / 4 comparisons on n / 2 threads; lines of many thousands would want a segmented
// radix sort instead (as PyTorch's cub path).
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "backend/cuda/block.cuh"
#include "backend/cuda/sort_launch.h"

namespace ember::cuda::kernels {

/// The comparators of Note [Bitonic sort of any length] over n elements, one b.phase per stage:
/// exchange(i, p) for each pair i < p < n of a stage (the pairs of a stage are disjoint); the
/// network sorts when exchange puts whichever of the two goes first at i. SortBody sorts (value,
/// index) pairs with it, unique along a dim (rearrange_body.cuh) a permutation of rows.
template <class Block, class Exchange>
EMBER_HOST_DEVICE void bitonic_network(const Block& b, int64_t n, Exchange&& exchange) {
  int64_t width = 1;  // the padded length, a power of two
  while (width < n) width *= 2;
  for (int64_t k = 2; k <= width; k *= 2)
    for (int64_t j = k / 2; j > 0; j /= 2)
      b.phase([&](uint32_t t) {
        for (int64_t i = t; i < width; i += b.threads()) {
          const int64_t p = j == k / 2 ? i ^ (k - 1) : i ^ j;  // the mirror, then halves
          if (p <= i || p >= n) continue;  // each pair once; past n: padding stays put
          exchange(i, p);
        }
      });
}

template <class S>
struct SortBody {
  using C = opmath_t<S>;

  /// Whether (a, ia) goes before (b, ib): by value (NaN largest; descending puts larger first),
  /// then by index.
  EMBER_HOST_DEVICE static bool before(C a, int64_t ia, C b, int64_t ib, bool descending) {
    const bool a_nan = a != a, b_nan = b != b;  // false for the integers
    const bool less = (b_nan && !a_nan) || a < b;
    const bool more = (a_nan && !b_nan) || b < a;
    if (descending ? more : less) return true;
    return !less && !more && ia < ib;
  }

  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const SortLaunch& l) {
    for (int64_t line = b.x(); line < l.lines; line += b.blocks_x()) {
      const int64_t o = line / l.inner, start = o * l.n * l.inner + line % l.inner;
      const S* x = reinterpret_cast<const S*>(l.self) + start;
      S* v = reinterpret_cast<S*>(l.values) + start;
      int64_t* ix = l.indices + start;
      b.phase([&](uint32_t t) {
        for (int64_t i = t; i < l.n; i += b.threads()) {
          v[i * l.inner] = x[i * l.inner];
          ix[i * l.inner] = i;
        }
      });
      bitonic_network(b, l.n, [&](int64_t i, int64_t p) {
        S* vi = v + i * l.inner;
        S* vp = v + p * l.inner;
        int64_t* ii = ix + i * l.inner;
        int64_t* ip = ix + p * l.inner;
        if (before(C(*vp), *ip, C(*vi), *ii, l.descending)) {
          const S sv = *vi;
          *vi = *vp;
          *vp = sv;
          const int64_t si = *ii;
          *ii = *ip;
          *ip = si;
        }
      });
      if (l.pick == Pick::all) continue;
      const int64_t top = o * l.k * l.inner + line % l.inner;
      S* top_values = reinterpret_cast<S*>(l.top_values) + top;
      if (l.pick == Pick::first_k) {
        b.phase([&](uint32_t t) {
          for (int64_t i = t; i < l.k; i += b.threads()) {
            top_values[i * l.inner] = v[i * l.inner];
            l.top_indices[top + i * l.inner] = ix[i * l.inner];
          }
        });
        continue;
      }
      b.leader([&] {
        if (l.n == 0) {  // the median of no elements (floating types only: the plan checks)
          if constexpr (std::is_floating_point_v<C>) *top_values = S(C(NAN));
          return;
        }
        const int64_t at = position(l, v);
        *top_values = v[at * l.inner];
        if (l.top_indices) l.top_indices[top] = ix[at * l.inner];
      });
    }
  }

  /// Where a selection's result sits in a sorted line v (of n > 0, `inner` apart), NaNs last:
  /// stable order puts equal values in index order, so the first NaN is the input's first, and
  /// a position's index is the CPU's where the CPU breaks ties by index (median, nanmedian).
  EMBER_HOST_DEVICE static int64_t position(const SortLaunch& l, const S* v) {
    if (l.pick == Pick::kth) return l.kth - 1;
    if (l.pick == Pick::mode) {
      // Runs of equal values (each NaN a run of its own, as NaN != NaN); the longest, the first
      // among equally long ones, reported at its end.
      int64_t best = 0, best_len = 0, run = 0;
      for (int64_t j = 0; j < l.n; ++j) {
        ++run;
        if (j == l.n - 1 || C(v[j * l.inner]) != C(v[(j + 1) * l.inner])) {
          if (run > best_len) {
            best_len = run;
            best = j;
          }
          run = 0;
        }
      }
      return best;
    }
    int64_t first_nan = l.n;  // NaNs sort last
    while (first_nan > 0 && C(v[(first_nan - 1) * l.inner]) != C(v[(first_nan - 1) * l.inner]))
      --first_nan;
    if (l.pick == Pick::median) return first_nan < l.n ? first_nan : (l.n - 1) / 2;
    return first_nan == 0 ? 0 : (first_nan - 1) / 2;  // nanmedian
  }
};

/// The body of l (launch.cuh): the floating types and int32/int64.
template <class F>
bool with_body(const SortLaunch& l, F&& f) {
  return with_type_among<float, double, Half, BFloat16, int32_t, int64_t>(
      l.type, [&](auto s) { f(Tag<SortBody<typename decltype(s)::type>>{}); });
}

}  // namespace ember::cuda::kernels
