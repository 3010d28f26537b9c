// The CUDA nonzero's count and write phases (nonzero_launch.h, Note [CUDA nonzero]; masked_select
// and masked_scatter write with the select and scatter phases), for the
// device (nonzero.cu) and the CPU emulation (nonzero_emulation.cpp) alike. A thread reads and
// writes only its own run and rows, so running the threads one by one computes what the device
// does.
#pragma once

#include <cstdint>

#include "backend/cuda/block.cuh"
#include "backend/cuda/host_device.cuh"
#include "backend/cuda/nonzero_launch.h"

namespace ember::cuda::kernels {

template <class S>
struct NonzeroBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const NonzeroLaunch& l) {
    const S* x = reinterpret_cast<const S*>(l.x);
    b.each_thread([&](uint32_t t) {
      const int64_t g = int64_t(b.x()) * b.threads() + t;
      const int64_t begin = g * l.per_thread;
      const int64_t end = begin + l.per_thread < l.n ? begin + l.per_thread : l.n;
      if (l.phase == NonzeroLaunch::Phase::count) {
        int64_t c = 0;
        for (int64_t i = begin; i < end; ++i) c += nonzero(x[i]);
        l.counts[g] = c;
        return;
      }
      if (l.phase != NonzeroLaunch::Phase::write) {
        // masked_select / masked_scatter: element k of the compaction is the k-th nonzero's.
        int64_t k = l.ends[g] - l.counts[g];
        for (int64_t i = begin; i < end; ++i) {
          if (!nonzero(x[i])) continue;
          if (l.phase == NonzeroLaunch::Phase::select)
            copy_item(l.selected + k * l.item, l.values + i * l.item, l.item);
          else
            copy_item(l.values + i * l.item, l.selected + k * l.item, l.item);
          ++k;
        }
        return;
      }
      int64_t* row = l.out + (l.ends[g] - l.counts[g]) * l.ndim;
      for (int64_t i = begin; i < end; ++i) {
        if (!nonzero(x[i])) continue;
        int64_t rest = i;
        for (int32_t d = l.ndim - 1; d >= 0; --d) {
          row[d] = rest % l.sizes[d];
          rest /= l.sizes[d];
        }
        row += l.ndim;
      }
    });
  }

  EMBER_HOST_DEVICE static bool nonzero(S v) { return opmath_t<S>(v) != opmath_t<S>(0); }
  /// One element of `item` bytes (1, 2, 4 or 8: the plan checks), as one load and one store.
  EMBER_HOST_DEVICE static void copy_item(char* to, const char* from, int64_t item) {
    switch (item) {
      case 1: *reinterpret_cast<uint8_t*>(to) = *reinterpret_cast<const uint8_t*>(from); break;
      case 2: *reinterpret_cast<uint16_t*>(to) = *reinterpret_cast<const uint16_t*>(from); break;
      case 4: *reinterpret_cast<uint32_t*>(to) = *reinterpret_cast<const uint32_t*>(from); break;
      default: *reinterpret_cast<uint64_t*>(to) = *reinterpret_cast<const uint64_t*>(from);
    }
  }
};

/// The body of l (launch.cuh): every storage type.
template <class F>
bool with_body(const NonzeroLaunch& l, F&& f) {
  return with_type(l.type, [&](auto s) { f(Tag<NonzeroBody<typename decltype(s)::type>>{}); });
}

}  // namespace ember::cuda::kernels
