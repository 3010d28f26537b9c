// A block-wide reduction for the CUDA kernels that combine many values into one (reduce.cu,
// softmax.cu): warp shuffles, then one value per warp through shared memory. Every thread of the
// block must call it (it synchronises); the result is valid in thread 0.
#pragma once

namespace ember::cuda::kernels {

inline constexpr int kWarp = 32;
inline constexpr int kMaxWarps = 32;  // blocks of at most 1024 threads, a multiple of 32

/// `combine(a, b)` is associative with identity `identity`; `shared` holds kMaxWarps values.
template <class Acc, class Combine>
__device__ Acc block_reduce(Acc v, Combine combine, Acc identity, Acc* shared) {
  for (int o = kWarp / 2; o > 0; o /= 2) v = combine(v, __shfl_down_sync(0xffffffffu, v, o));
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  __syncthreads();  // shared may still be read by a previous call
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < int(blockDim.x / kWarp) ? shared[lane] : identity;
    for (int o = kWarp / 2; o > 0; o /= 2) v = combine(v, __shfl_down_sync(0xffffffffu, v, o));
  }
  return v;
}

}  // namespace ember::cuda::kernels
