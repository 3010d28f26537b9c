// The CUDA multinomial sampling's two kernels (Note [CUDA multinomial] in multinomial_launch.h),
// for the device (multinomial.cu) and the CPU emulation (multinomial_emulation.cpp) alike.
#pragma once

#include <cstdint>

#include "backend/cuda/block.cuh"
#include "backend/cuda/multinomial_launch.h"
#include "backend/cuda/philox.cuh"

namespace ember::cuda::kernels {

/// A sum that rounds to the storage type S after every addition, as PyTorch's renormRowsL1 adds
/// in scalar_t (float16 and bfloat16 included).
template <class S>
struct StorageSum {
  using C = opmath_t<S>;
  EMBER_HOST_DEVICE C identity() const { return C(0); }
  EMBER_HOST_DEVICE C operator()(C a, C b) const { return C(S(a + b)); }
};

template <class S>
struct RenormRowsBody {
  using C = opmath_t<S>;
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const RenormRowsLaunch& l) {
    const StorageSum<S> sum_of;
    for (int64_t row = b.x(); row < l.rows; row += b.blocks_x()) {
      S* d = reinterpret_cast<S*>(l.dist) + row * l.cols;
      const C block_sum = b.reduce(
          [&](uint32_t t) {
            C s = sum_of.identity();
            for (int64_t c = t; c < l.cols; c += b.threads()) {
              const C v = C(d[c]);
              if (v < C(0)) record_bad_index(l.bad, row * 4 + 1);
              if (!(v - v == C(0))) record_bad_index(l.bad, row * 4 + 2);  // inf or NaN
              s = sum_of(s, v);
            }
            return s;
          },
          sum_of);
      const C sum = b.broadcast(block_sum);
      if (!(sum > C(0))) {
        b.leader([&] { record_bad_index(l.bad, row * 4 + 3); });
        continue;
      }
      b.phase([&](uint32_t t) {
        for (int64_t c = t; c < l.cols; c += b.threads()) d[c] = S(C(d[c]) / sum);
      });
    }
  }
};

template <class S>
struct MultinomialBody {
  using C = opmath_t<S>;
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const MultinomialLaunch& l) {
    // The launch's 1-D grid is PyTorch's 2-D one row by row: the same thread numbers.
    const int64_t x = b.x() % l.blocks_x, y = b.x() / l.blocks_x;
    const int64_t stride = int64_t(b.threads()) * l.blocks_x;
    const S* prefix = reinterpret_cast<const S*>(l.prefix);
    const S* dist = reinterpret_cast<const S*>(l.dist);
    b.each_thread([&](uint32_t t) {
      Philox rng(l.seed, uint64_t(int64_t(b.x()) * b.threads() + t), l.offset);
      for (int64_t row = y; row < l.rows; row += l.blocks_y)
        for (int64_t s = x * b.threads() + t; s < l.samples; s += stride) {
          const S r = S(uniform4(rng).v[0]);  // 3 of the 4 values go unused, as in PyTorch
          l.out[row * l.samples + s] = bucket(prefix + row * l.cols, dist + row * l.cols, l.cols, r);
        }
    });
  }

  /// binarySearchForMultinomial: the first bucket whose prefix sum is not below val (the last
  /// when none, as for val = 1), moved back over zero-probability entries.
  EMBER_HOST_DEVICE static int64_t bucket(const S* prefix, const S* dist, int64_t n, S val) {
    int64_t start = 0, end = n;
    while (end > start) {
      const int64_t mid = start + (end - start) / 2;
      if (C(prefix[mid]) < C(val))
        start = mid + 1;
      else
        end = mid;
    }
    if (start == n) start = n - 1;
    while (start >= 1 && C(dist[start]) == C(0)) --start;
    return start;
  }
};

/// The bodies of the launches (launch.cuh): the floating types.
template <class F>
bool with_body(const RenormRowsLaunch& l, F&& f) {
  return with_floating_type(l.type,
                            [&](auto s) { f(Tag<RenormRowsBody<typename decltype(s)::type>>{}); });
}
template <class F>
bool with_body(const MultinomialLaunch& l, F&& f) {
  return with_floating_type(l.type,
                            [&](auto s) { f(Tag<MultinomialBody<typename decltype(s)::type>>{}); });
}

}  // namespace ember::cuda::kernels
