// The CUDA max/min with indices (arg_reduce_launch.h), for the device (arg_reduce.cu) and the CPU
// emulation (arg_reduce_emulation.cpp) alike: per row, b.reduce of the extremum, b.broadcast of
// it, b.reduce of the first position holding it (Note [Block programs] in block.cuh).
#pragma once

#include <cstdint>

#include "backend/cuda/arg_reduce_launch.h"
#include "backend/cuda/block.cuh"
#include "backend/cuda/block_reduce.cuh"

namespace ember::cuda::kernels {

/// The smaller position: the first occurrence wins.
struct FirstPosition {
  EMBER_HOST_DEVICE int64_t identity() const { return INT64_MAX; }
  EMBER_HOST_DEVICE int64_t operator()(int64_t a, int64_t b) const { return a < b ? a : b; }
};

template <class S>
struct ArgReduceBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const ArgReduceLaunch& l) {
    using C = opmath_t<S>;
    for (int64_t m = b.x(); m < l.rows; m += b.blocks_x()) {
      const S* row = reinterpret_cast<const S*>(l.in) + m * l.cols;
      const C best =
          b.broadcast(l.is_max ? extremum(b, l, row, Max<C>{}) : extremum(b, l, row, Min<C>{}));
      const bool nan = best != best;
      const int64_t first = b.reduce(
          [&](uint32_t t) {
            int64_t j = FirstPosition{}.identity();
            for (int64_t k = t; k < l.cols; k += b.threads()) {
              const C x = C(row[k]);
              if (nan ? x != x : x == best) {
                j = k;
                break;  // a thread's positions ascend
              }
            }
            return j;
          },
          FirstPosition{});
      b.leader([&] {
        reinterpret_cast<S*>(l.values)[m] = row[first];
        l.indices[m] = first;
      });
    }
  }

  // The row's extremum under R (NaN winning), valid in the leader.
  template <class Block, class R>
  EMBER_HOST_DEVICE static opmath_t<S> extremum(const Block& b, const ArgReduceLaunch& l,
                                                const S* row, R r) {
    using C = opmath_t<S>;
    return b.reduce(
        [&](uint32_t t) {
          C a = r.identity();
          for (int64_t k = t; k < l.cols; k += b.threads()) a = r(a, C(row[k]));
          return a;
        },
        r);
  }
};

/// The body of l (launch.cuh): the floating storage types.
template <class F>
bool with_body(const ArgReduceLaunch& l, F&& f) {
  return with_floating_type(l.type,
                            [&](auto s) { f(Tag<ArgReduceBody<typename decltype(s)::type>>{}); });
}

}  // namespace ember::cuda::kernels
