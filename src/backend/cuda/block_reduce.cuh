// Combining a block's values into one (reduce_body.cuh, softmax_body.cuh): the combiners, and the
// one combine tree in its two forms, side by side so they stay the same tree. On the device:
// warp shuffles, then one value per warp through shared memory, then the first warp's shuffles.
// In the emulation: the same pairs combined in the same order over an array of the block's
// values, so an emulated reduction rounds as the device's does (up to the math library).
#pragma once

#include <cstdint>
#include <type_traits>

#include "backend/cuda/host_device.cuh"

namespace ember::cuda::kernels {

inline constexpr int kWarp = 32;
inline constexpr int kMaxWarps = 32;  // blocks of at most 1024 threads, a multiple of 32

/// The largest value of an integral accumulator, on either side (numeric_limits is host-only).
template <class Acc>
EMBER_HOST_DEVICE constexpr Acc int_max() {
  using U = std::make_unsigned_t<Acc>;
  return std::is_signed_v<Acc> ? Acc(U(~U(0)) >> 1) : Acc(~U(0));
}

// ── combiners: an associative combine with its identity ───────────────────────────────────
template <class Acc>
struct Sum {
  EMBER_HOST_DEVICE Acc identity() const { return Acc(0); }
  EMBER_HOST_DEVICE Acc operator()(Acc a, Acc b) const { return a + b; }
};
template <class Acc>
struct Max {  // NaN wins, as torch.amax
  EMBER_HOST_DEVICE Acc identity() const {
    if constexpr (std::is_integral_v<Acc>)
      return std::is_signed_v<Acc> ? Acc(-int_max<Acc>() - 1) : Acc(0);  // the lowest
    else
      return Acc(-INFINITY);
  }
  EMBER_HOST_DEVICE Acc operator()(Acc a, Acc b) const { return a != a || a > b ? a : b; }
};
template <class Acc>
struct Min {
  EMBER_HOST_DEVICE Acc identity() const {
    if constexpr (std::is_integral_v<Acc>)
      return int_max<Acc>();
    else
      return Acc(INFINITY);
  }
  EMBER_HOST_DEVICE Acc operator()(Acc a, Acc b) const { return a != a || a < b ? a : b; }
};

#ifdef __CUDACC__
/// Every thread of the block calls it (it synchronises); the result is valid in thread 0.
/// `shared` holds kMaxWarps values.
template <class Acc, class Combine>
__device__ Acc block_reduce(Acc v, Combine combine, Acc* shared) {
  // Lane l takes lane l + o's value; lane 0 ends with the tree emulated_block_reduce spells out.
  for (int o = kWarp / 2; o > 0; o /= 2) v = combine(v, __shfl_down_sync(0xffffffffu, v, o));
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  __syncthreads();  // shared may still be read by a previous call
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < int(blockDim.x / kWarp) ? shared[lane] : combine.identity();
    for (int o = kWarp / 2; o > 0; o /= 2) v = combine(v, __shfl_down_sync(0xffffffffu, v, o));
  }
  return v;
}
#endif

/// block_reduce's tree over the values of a block's `threads` threads (a multiple of 32, at most
/// 1024), thread t's in v[t]; v is overwritten. Only the pairs lane 0's result depends on are
/// combined: at offset o, lanes l < o take lane l + o (the device's other lanes do work nobody
/// reads), with the same operand order as the shuffle's combine(own, other).
template <class Acc, class Combine>
Acc emulated_block_reduce(Acc* v, uint32_t threads, Combine combine) {
  const auto warp_tree = [&](Acc* lanes) {
    for (int o = kWarp / 2; o > 0; o /= 2)
      for (int l = 0; l < o; ++l) lanes[l] = combine(lanes[l], lanes[l + o]);
    return lanes[0];
  };
  Acc first_warp[kWarp];
  const uint32_t warps = threads / kWarp;
  for (uint32_t w = 0; w < uint32_t(kWarp); ++w)
    first_warp[w] = w < warps ? warp_tree(v + w * kWarp) : combine.identity();
  return warp_tree(first_warp);
}

}  // namespace ember::cuda::kernels
