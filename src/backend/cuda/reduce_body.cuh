// The reductions' work (sum, mean, amax, amin), for the device (reduce.cu) and the CPU emulation
// (reduce_emulation.cpp) alike, over the two index spaces of reduce_launch.h: each block reduces
// one output (or one chunk of it) through b.reduce (block_reduce's tree); float16/bfloat16 load
// into a float32 accumulator, as PyTorch's acc_type, and round once on the store. amax/amin
// propagate NaN, as torch.amax does.
#pragma once

#include <cstdint>

#include "backend/cuda/block.cuh"
#include "backend/cuda/reduce_launch.h"
#include "backend/cuda/strided.cuh"

namespace ember::cuda::kernels {

template <class S, class Acc>
EMBER_HOST_DEVICE void store_reduced(const ReduceLaunch& l, int64_t o, Acc acc) {
  if (l.op == ReduceOp::mean) acc = acc / Acc(l.divisor);
  reinterpret_cast<S*>(l.out)[o] = S(acc);
}

/// Block (x, y)'s share: chunk y of outputs x, x + blocks_x, ...; with one split it writes the
/// output, with more its accumulator goes to `partial` (outputs x splits) for combine_block.
template <class S, class Acc, class R, class Block>
EMBER_HOST_DEVICE void reduce_block(const Block& b, R r, const ReduceLaunch& l) {
  const int64_t begin = int64_t(b.y()) * l.chunk;
  const int64_t end = begin + l.chunk < l.reduced ? begin + l.chunk : l.reduced;
  for (int64_t o = b.x(); o < l.outputs; o += b.blocks_x()) {
    const char* line = l.in + offset_of(l.kept_ndim, l.kept_shape, l.kept_strides, o);
    const Acc acc = b.reduce(
        [&](uint32_t t) {
          Acc a = r.identity();
          for (int64_t j = begin + t; j < end; j += b.threads()) {
            const char* p = line + offset_of(l.reduced_ndim, l.reduced_shape, l.reduced_strides, j);
            a = r(a, Acc(*reinterpret_cast<const S*>(p)));
          }
          return a;
        },
        r);
    b.leader([&] {
      if (b.blocks_y() == 1)
        store_reduced<S>(l, o, acc);
      else
        static_cast<Acc*>(l.partial)[o * b.blocks_y() + b.y()] = acc;
    });
  }
}

/// The second pass when the reduced elements were split: one thread combines one output's row
/// of partials, in split order.
template <class S, class Acc, class R, class Block>
EMBER_HOST_DEVICE void combine_block(const Block& b, R r, const ReduceLaunch& l) {
  grid_stride(b, l.outputs, [&](int64_t o) {
    const Acc* row = static_cast<const Acc*>(l.partial) + o * l.splits;
    Acc acc = r.identity();
    for (uint32_t s = 0; s < l.splits; ++s) acc = r(acc, row[s]);
    store_reduced<S>(l, o, acc);
  });
}

/// The grid of combine_block: enough blocks of l.threads for one thread per output.
inline uint32_t combine_blocks(const ReduceLaunch& l) {
  const int64_t blocks = (l.outputs + l.threads - 1) / l.threads;
  return uint32_t(blocks < 65536 ? blocks : 65536);
}

/// Calls f(Tag<S>{}, Tag<Acc>{}, combiner) for l's storage type and op; false for unknown ones.
template <class F>
bool with_reduction(const ReduceLaunch& l, F&& f) {
  bool known = true;
  const bool typed = with_floating_type(l.type, [&](auto type) {
    using S = typename decltype(type)::type;
    using Acc = std::conditional_t<std::is_same_v<S, double>, double, float>;
    switch (l.op) {
      case ReduceOp::sum:
      case ReduceOp::mean:
        f(type, Tag<Acc>{}, Sum<Acc>{});
        return;
      case ReduceOp::amax:
        f(type, Tag<Acc>{}, Max<Acc>{});
        return;
      case ReduceOp::amin:
        f(type, Tag<Acc>{}, Min<Acc>{});
        return;
    }
    known = false;
  });
  return typed && known;
}

}  // namespace ember::cuda::kernels
