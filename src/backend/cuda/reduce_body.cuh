// The reductions' work (sum, mean, amax, amin, nansum, prod, norm, var), for the device (reduce.cu)
// and the CPU emulation (reduce_emulation.cpp) alike, over the two index spaces of
// reduce_launch.h: each block reduces one output (or one chunk of it) through b.reduce
// (block_reduce's tree); float16/bfloat16 load into a float32 accumulator, as PyTorch's
// acc_type, and round once on the store. amax/amin propagate NaN, as torch.amax does.
//
// A reduction is a combiner (identity and combine, block_reduce.cuh's Sum/Max/Min or Prod here)
// with a load: what each input element becomes before it is combined (itself; 0 for a NaN in
// nansum; |x|, x^2 or |x|^p in norm; (x - mean)^2 in var's second pass, the mean the first pass's,
// kept in the accumulator type). Loads apply to elements only, never to accumulators, so the
// tree and the split pass combine what the elements became; the store finishes (mean's division,
// norm's root, var's division and std's root).
#pragma once

#include <cstdint>
#include <type_traits>

#include "backend/cuda/block.cuh"
#include "backend/cuda/reduce_launch.h"
#include "backend/cuda/strided.cuh"

namespace ember::cuda::kernels {

template <class Acc>
struct Prod {
  EMBER_HOST_DEVICE Acc identity() const { return Acc(1); }
  EMBER_HOST_DEVICE Acc operator()(Acc a, Acc b) const { return a * b; }
};

// The loads.
struct LoadSame {
  template <class Acc>
  EMBER_HOST_DEVICE Acc operator()(Acc x, int64_t) const {
    return x;
  }
};
struct LoadNanAsZero {
  template <class Acc>
  EMBER_HOST_DEVICE Acc operator()(Acc x, int64_t) const {
    return x != x ? Acc(0) : x;
  }
};
struct LoadAbs {
  template <class Acc>
  EMBER_HOST_DEVICE Acc operator()(Acc x, int64_t) const {
    return math::fabs(x);
  }
};
struct LoadSquare {
  template <class Acc>
  EMBER_HOST_DEVICE Acc operator()(Acc x, int64_t) const {
    return x * x;
  }
};
struct LoadAbsPow {
  double p;
  template <class Acc>
  EMBER_HOST_DEVICE Acc operator()(Acc x, int64_t) const {
    return math::pow(math::fabs(x), Acc(p));
  }
};
/// torch.norm's p = 0: the count of non-zero elements.
struct LoadNonzero {
  template <class Acc>
  EMBER_HOST_DEVICE Acc operator()(Acc x, int64_t) const {
    return x != Acc(0) ? Acc(1) : Acc(0);
  }
};
/// var's second pass: the square of x's distance from its output's mean (the first pass's).
struct LoadCentered {
  const void* center;
  template <class Acc>
  EMBER_HOST_DEVICE Acc operator()(Acc x, int64_t o) const {
    const Acc d = x - static_cast<const Acc*>(center)[o];
    return d * d;
  }
};

/// A combiner R with the load applied to each element of output o first (r.load(x, o)).
template <class R, class Load>
struct Loaded : R {
  Load load;
};

/// norm's finish, as the CPU kernel's: the square root for p = 2, nothing for p = 1 and +-inf
/// (max|x|, min|x|) and p = 0 (the count), else the p-th root.
template <class Acc>
EMBER_HOST_DEVICE Acc finish_norm(Acc acc, double p) {
  if (p == 2) return math::sqrt(acc);
  if (p == 1 || p == 0 || p == INFINITY || p == -INFINITY) return acc;
  return math::pow(acc, Acc(1.0 / p));
}

template <class S, class Acc>
EMBER_HOST_DEVICE void store_reduced(const ReduceLaunch& l, int64_t o, Acc acc) {
  if constexpr (!std::is_integral_v<Acc>) {  // the integers are only summed, multiplied, compared
    if (l.op == ReduceOp::mean) acc = acc / Acc(l.divisor);
    if (l.op == ReduceOp::norm) acc = finish_norm(acc, l.p);
    if (l.op == ReduceOp::var) {
      acc = acc / Acc(l.divisor);  // n <= correction: inf, or NaN for 0 / 0, as PyTorch
      if (l.take_sqrt) acc = math::sqrt(acc);
    }
  }
  if (l.acc_out)
    reinterpret_cast<Acc*>(l.out)[o] = acc;
  else if (std::is_integral_v<Acc> && l.int64_out)
    reinterpret_cast<int64_t*>(l.out)[o] = int64_t(acc);
  else
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
            a = r(a, r.load(Acc(*reinterpret_cast<const S*>(p)), o));
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

/// Calls f(reduction) with the p-norm's reduction over Acc (a Loaded combiner; finish_norm
/// finishes it): max|x| and min|x| for p = +-inf, the count of non-zero elements for p = 0, else
/// the sum of |x|, x^2 or |x|^p. The reductions and embedding_renorm's row norms (renorm_body.cuh)
/// share it; a launcher picks its body with it, on the host.
template <class Acc, class F>
void with_norm(double p, F&& f) {
  if (p == INFINITY)
    f(Loaded<Max<Acc>, LoadAbs>{});
  else if (p == -INFINITY)
    f(Loaded<Min<Acc>, LoadAbs>{});
  else if (p == 0)
    f(Loaded<Sum<Acc>, LoadNonzero>{});
  else if (p == 1)
    f(Loaded<Sum<Acc>, LoadAbs>{});
  else if (p == 2)
    f(Loaded<Sum<Acc>, LoadSquare>{});
  else
    f(Loaded<Sum<Acc>, LoadAbsPow>{{}, LoadAbsPow{p}});
}

/// Calls f(Tag<S>{}, Tag<Acc>{}, reduction) for l's storage type and op, the reduction a Loaded
/// combiner; false for unknown ones.
template <class F>
bool with_reduction(const ReduceLaunch& l, F&& f) {
  bool known = true;
  if (l.type == Type::int32 || l.type == Type::int64 || l.type == Type::boolean) {
    // The integers accumulate in int64 (any/all over bool are amax/amin of 0 and 1).
    return with_type_among<int32_t, int64_t, bool>(l.type, [&](auto type) {
      switch (l.op) {
        case ReduceOp::sum: return f(type, Tag<int64_t>{}, Loaded<Sum<int64_t>, LoadSame>{});
        case ReduceOp::prod: return f(type, Tag<int64_t>{}, Loaded<Prod<int64_t>, LoadSame>{});
        case ReduceOp::amax: return f(type, Tag<int64_t>{}, Loaded<Max<int64_t>, LoadSame>{});
        case ReduceOp::amin: return f(type, Tag<int64_t>{}, Loaded<Min<int64_t>, LoadSame>{});
        default: known = false;
      }
    }) && known;
  }
  const bool typed = with_floating_type(l.type, [&](auto type) {
    using S = typename decltype(type)::type;
    using Acc = std::conditional_t<std::is_same_v<S, double>, double, float>;
    switch (l.op) {
      case ReduceOp::sum:
      case ReduceOp::mean:
        f(type, Tag<Acc>{}, Loaded<Sum<Acc>, LoadSame>{});
        return;
      case ReduceOp::amax:
        f(type, Tag<Acc>{}, Loaded<Max<Acc>, LoadSame>{});
        return;
      case ReduceOp::amin:
        f(type, Tag<Acc>{}, Loaded<Min<Acc>, LoadSame>{});
        return;
      case ReduceOp::nansum:
        f(type, Tag<Acc>{}, Loaded<Sum<Acc>, LoadNanAsZero>{});
        return;
      case ReduceOp::prod:
        f(type, Tag<Acc>{}, Loaded<Prod<Acc>, LoadSame>{});
        return;
      case ReduceOp::norm:
        with_norm<Acc>(l.p, [&](auto r) { f(type, Tag<Acc>{}, r); });
        return;
      case ReduceOp::var:
        f(type, Tag<Acc>{}, Loaded<Sum<Acc>, LoadCentered>{{}, LoadCentered{l.center}});
        return;
    }
    known = false;
  });
  return typed && known;
}

}  // namespace ember::cuda::kernels
