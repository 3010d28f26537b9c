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

/// gather/scatter (E: the unsigned integer of the element size) and scatter_add (E: the floating
/// storage type).
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
      } else
        *dst = *src;
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
      const int64_t entry = l.index[j];
      if (entry < 0 || entry >= l.size) return record_bad_index(l.bad, entry);
      out[e] = src[(o * l.size + entry) * l.inner + k];
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
  if (l.op == GatherOp::scatter_add)
    return with_floating_type(l.type, [&](auto t) {
      f(Tag<GatherBody<typename decltype(t)::type, GatherOp::scatter_add>>{});
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
