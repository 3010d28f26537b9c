// The two ways a kernel body runs: as a CUDA block (DeviceBlock, under nvcc) or as a CPU
// emulation of one (HostBlock, in every build), so the CPU tests check the bodies the device runs.
//
// Note [Block programs]
// ~~~~~~~~~~~~~~~~~~~~~
// A kernel body is written once, as what one block does, templated on the block
// (`template <class Block> EMBER_HOST_DEVICE void body(const Block& b, ...)`):
//   - code outside the calls below is uniform: every thread of the block would compute the same
//     (loops over the block's outputs, pointers, the results of b.broadcast);
//   - b.each_thread(f): f(t) for each thread t of the block (its per-thread work);
//   - b.reduce(f, combine): combines f(t) over the block's threads in block_reduce's tree;
//     the result is valid in the leader (thread 0) only;
//   - b.leader(f): f() in thread 0 only; b.broadcast(v): the leader's v, to every thread;
//   - b.phase(f): each_thread(f), then a barrier: what a thread wrote in f is what every thread
//     reads after it. Within one phase no thread may read what another writes (a sorting
//     network's compare-exchanges touch disjoint pairs), so running threads one by one gives
//     the device's result.
// On the device each thread runs the body: each_thread calls f(threadIdx.x) once, reduce is the
// shuffle/shared-memory block_reduce, broadcast goes through shared memory with __syncthreads.
// The emulation runs the body once per block: each_thread and phase loop over the threads in
// order, reduce keeps every thread's value and combines them in the device's tree
// (emulated_block_reduce), broadcast returns v. This is a per-block sequential emulation split
// into phases at the barriers: reduce, broadcast and the end of a phase are the only places
// threads meet, and everything between two of them runs thread by thread. It needs no fibers and
// keeps the device's combine order, which a plain thread-by-thread loop across a barrier could
// not; the price is the rule above: shared memory and __syncthreads only through the block's
// calls.
#pragma once

#include <cstdint>

#include "backend/cuda/block_reduce.cuh"
#include "backend/cuda/host_device.cuh"

namespace ember::cuda::kernels {

#ifdef __CUDACC__
/// One block's shared memory for reduce and broadcast over Acc: kMaxWarps values for
/// block_reduce and a broadcast slot after them, one array per Acc type however many calls.
template <class Acc>
__device__ Acc* block_scratch() {
  __shared__ Acc scratch[kMaxWarps + 1];
  return scratch;
}

struct DeviceBlock {
  __device__ uint32_t x() const { return blockIdx.x; }
  __device__ uint32_t y() const { return blockIdx.y; }
  __device__ uint32_t blocks_x() const { return gridDim.x; }
  __device__ uint32_t blocks_y() const { return gridDim.y; }
  __device__ uint32_t threads() const { return blockDim.x; }

  template <class F>
  __device__ void each_thread(F&& f) const {
    f(uint32_t(threadIdx.x));
  }
  template <class F, class Combine>
  __device__ auto reduce(F&& f, Combine combine) const {
    using Acc = decltype(f(0u));
    return block_reduce(f(uint32_t(threadIdx.x)), combine, block_scratch<Acc>());
  }
  template <class F>
  __device__ void leader(F&& f) const {
    if (threadIdx.x == 0) f();
  }
  template <class F>
  __device__ void phase(F&& f) const {
    f(uint32_t(threadIdx.x));
    __syncthreads();
  }
  template <class T>
  __device__ T broadcast(T v) const {
    T& slot = block_scratch<T>()[kMaxWarps];  // block_reduce leaves it alone
    if (threadIdx.x == 0) slot = v;
    __syncthreads();
    v = slot;
    __syncthreads();  // everyone has read the slot before a later broadcast rewrites it
    return v;
  }
};
#else
struct HostBlock {
  uint32_t x_, y_, blocks_x_, blocks_y_, threads_;

  uint32_t x() const { return x_; }
  uint32_t y() const { return y_; }
  uint32_t blocks_x() const { return blocks_x_; }
  uint32_t blocks_y() const { return blocks_y_; }
  uint32_t threads() const { return threads_; }

  template <class F>
  void each_thread(F&& f) const {
    for (uint32_t t = 0; t < threads_; ++t) f(t);
  }
  template <class F, class Combine>
  auto reduce(F&& f, Combine combine) const {
    using Acc = decltype(f(0u));
    Acc v[kMaxWarps * kWarp];
    for (uint32_t t = 0; t < threads_; ++t) v[t] = f(t);
    return emulated_block_reduce(v, threads_, combine);
  }
  template <class F>
  void leader(F&& f) const {
    f();
  }
  template <class F>
  void phase(F&& f) const {
    each_thread(f);
  }
  template <class T>
  T broadcast(T v) const {
    return v;
  }
};

/// Runs body(HostBlock) for every block of a (blocks_x, blocks_y) grid of `threads` threads, in
/// order; false (nothing run) for a block the device would refuse or a reduction could not tree:
/// no threads, more than 1024, or not a whole number of warps.
template <class Body>
bool emulate_grid(uint32_t blocks_x, uint32_t blocks_y, uint32_t threads, Body&& body) {
  if (threads == 0 || threads > uint32_t(kMaxWarps * kWarp) || threads % kWarp != 0) return false;
  for (uint32_t y = 0; y < blocks_y; ++y)
    for (uint32_t x = 0; x < blocks_x; ++x) body(HostBlock{x, y, blocks_x, blocks_y, threads});
  return true;
}
#endif

/// The grid-stride loop of the elementwise kernels: f(i) for every i < n, thread t of block x
/// taking i = x * threads + t, then every (blocks_x * threads)-th after it.
template <class Block, class F>
EMBER_HOST_DEVICE void grid_stride(const Block& b, int64_t n, F&& f) {
  b.each_thread([&](uint32_t t) {
    const int64_t step = int64_t(b.threads()) * b.blocks_x();
    for (int64_t i = int64_t(b.x()) * b.threads() + t; i < n; i += step) f(i);
  });
}

/// The first i in [0, n) where pred(i) holds, n where none does: a binary search over a pred
/// that is false up to some index and true from there on (searchsorted, repeat_interleave's
/// runs, interpolate's outputs of an input index).
template <class Pred>
EMBER_HOST_DEVICE int64_t first_where(int64_t n, Pred&& pred) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (pred(mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/// Records `entry` in a launch's bad-index record, two int64 ({0, 0} until an entry is out of
/// range, then {1, that entry}), unless one is recorded already (gather_launch.h, loss_launch.h).
EMBER_HOST_DEVICE inline void record_bad_index(int64_t* bad, int64_t entry) {
#ifdef __CUDA_ARCH__
  if (atomicCAS(reinterpret_cast<unsigned long long*>(bad), 0ull, 1ull) == 0ull) bad[1] = entry;
#else
  if (bad[0] == 0) {
    bad[0] = 1;
    bad[1] = entry;
  }
#endif
}

}  // namespace ember::cuda::kernels
