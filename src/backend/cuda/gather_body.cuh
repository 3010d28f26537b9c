// The gather-family kernels' work, for the device (gather.cu) and the CPU emulation
// (gather_emulation.cpp) alike: grid-stride loops over the index (gather, scatter, scatter_add),
// over the output (index_select, embedding) or over the entries (the index check), each entry
// checked against its range (gather_launch.h).
//
// scatter with repeated entries writes one of the values, which one unspecified, and
// scatter_add's repeated entries add up in no fixed order on the device (atomics), both as
// PyTorch's CUDA kernels; the emulation runs them in grid order. Pure moves go by element size,
// so one kernel per size serves every dtype.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "backend/cuda/block.cuh"
#include "backend/cuda/copy_body.cuh"
#include "backend/cuda/gather_launch.h"
#include "backend/cuda/strided.cuh"

namespace ember::cuda::kernels {

/// ++*n, atomic on the device.
EMBER_HOST_DEVICE inline void count(int64_t* n) {
#ifdef __CUDA_ARCH__
  atomicAdd(reinterpret_cast<unsigned long long*>(n), 1ull);
#else
  ++*n;
#endif
}

/// *p += v in S's op math, rounded once to S (the CPU's scatter_add); atomic on the device, where
/// other threads may add to the same element.
template <class S>
EMBER_HOST_DEVICE void add_to(S* p, S v) {
#ifdef __CUDA_ARCH__
  atomicAdd(p, v);
#else
  *p = S(opmath_t<S>(*p) + opmath_t<S>(v));
#endif
}

/// *p = f(*p), atomically on the device (a compare-and-swap loop on the element's bits, 16 bits
/// and up: the reductions' types), in place in the emulation.
template <class S, class F>
EMBER_HOST_DEVICE void update(S* p, F f) {
#ifdef __CUDA_ARCH__
  using U = std::conditional_t<sizeof(S) == 2, unsigned short,
                               std::conditional_t<sizeof(S) == 4, unsigned, unsigned long long>>;
  U* bits = reinterpret_cast<U*>(p);
  U old = *bits, seen;
  do {
    seen = old;
    S value;
    memcpy(&value, &seen, sizeof(S));
    const S next = f(value);
    U next_bits;
    memcpy(&next_bits, &next, sizeof(S));
    old = atomicCAS(bits, seen, next_bits);
  } while (old != seen);
#else
  *p = f(*p);
#endif
}

/// a combined with b under a reduction of GatherOp, in op math C: NaN wins for amax and amin, as
/// the CPU's (PyTorch's ReduceMaximum/ReduceMinimum).
template <GatherOp Op, class C>
EMBER_HOST_DEVICE C combine(C a, C b) {
  if constexpr (Op == GatherOp::scatter_prod)
    return a * b;
  else if constexpr (Op == GatherOp::scatter_amax)
    return b != b ? b : (a < b ? b : a);
  else
    return b != b ? b : (b < a ? b : a);
}

/// gather/scatter (E: the unsigned integer of the element size), scatter_add and the reductions
/// (E: the floating storage type).
template <class E, GatherOp Op>
struct GatherBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const GatherLaunch& l) {
    each_strided<3>(b, l, [&](char* const* at) {
      const int64_t entry = *reinterpret_cast<const int64_t*>(at[2]);
      if (entry < 0 || entry >= l.size) return record_bad_index(l.bad, entry);
      const int64_t step = entry * l.dim_stride;
      const bool gather = Op == GatherOp::gather;
      E* dst = reinterpret_cast<E*>(at[0] + (gather ? 0 : step));
      const E* src = reinterpret_cast<const E*>(at[1] + (gather ? step : 0));
      if constexpr (Op == GatherOp::scatter_add) {
        using C = opmath_t<E>;
        if (entry == l.skip) return;
        const C scale = l.counts ? C(1) / C(l.counts[entry]) : C(l.alpha);
        add_to(dst, E(C(*src) * scale));  // exact for a scale of 1
      } else if constexpr (Op == GatherOp::gather || Op == GatherOp::scatter) {
        *dst = *src;
      } else {
        using C = opmath_t<E>;
        const C v = C(*src);
        update(dst, [v](E a) { return E(combine<Op>(C(a), v)); });
      }
    });
  }
};

template <class E>
struct SelectBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const SelectLaunch& l) {
    const E* src = reinterpret_cast<const E*>(l.src);
    E* out = reinterpret_cast<E*>(l.out);
    grid_stride(b, l.numel, [&](int64_t e) {
      const int64_t k = e % l.inner, row = e / l.inner, j = row % l.n, o = row / l.n;
      const int64_t entry = l.index[j], at = l.wrap && entry < 0 ? entry + l.size : entry;
      if (at < 0 || at >= l.size) return record_bad_index(l.bad, entry);
      out[e] = src[(o * l.size + at) * l.inner + k];
    });
  }
};

struct CheckIndexBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const CheckIndexLaunch& l) {
    grid_stride(b, l.numel, [&](int64_t e) {
      const int64_t entry = l.index[e];
      if (entry >= l.size || entry < (l.wrap ? -l.size : 0)) return record_bad_index(l.bad, entry);
      if (entry < 0) l.index[e] = entry + l.size;
      if (l.counts) count(l.counts + (entry < 0 ? entry + l.size : entry));
    });
  }
};

// The bodies of each launch (launch.cuh).
template <class F>
bool with_body(const GatherLaunch& l, F&& f) {
  if (l.op != GatherOp::gather && l.op != GatherOp::scatter)
    return with_floating_type(l.type, [&](auto t) {
      using E = typename decltype(t)::type;
      switch (l.op) {
        case GatherOp::scatter_prod:
          return f(Tag<GatherBody<E, GatherOp::scatter_prod>>{});
        case GatherOp::scatter_amax:
          return f(Tag<GatherBody<E, GatherOp::scatter_amax>>{});
        case GatherOp::scatter_amin:
          return f(Tag<GatherBody<E, GatherOp::scatter_amin>>{});
        default:
          return f(Tag<GatherBody<E, GatherOp::scatter_add>>{});
      }
    });
  return with_item_bits(l.itemsize, [&](auto u) {
    using U = typename decltype(u)::type;
    if (l.op == GatherOp::gather)
      f(Tag<GatherBody<U, GatherOp::gather>>{});
    else
      f(Tag<GatherBody<U, GatherOp::scatter>>{});
  });
}
template <class F>
bool with_body(const SelectLaunch& l, F&& f) {
  return with_item_bits(l.itemsize,
                        [&](auto u) { f(Tag<SelectBody<typename decltype(u)::type>>{}); });
}
template <class F>
bool with_body(const CheckIndexLaunch&, F&& f) {
  f(Tag<CheckIndexBody>{});
  return true;
}

}  // namespace ember::cuda::kernels
