// What the host side (randperm.cpp) hands the CUDA randperm (randperm.cu): PyTorch 1.13's
// algorithm in three launches after the keys' random_ fill. Plain structs, so nvcc compiles no
// ember header.
//
// Note [CUDA randperm]
// ~~~~~~~~~~~~~~~~~~~~
// PyTorch 1.13's randperm_out_cuda (ATen/native/cuda/Randperm.cu, Randperm.cuh):
//  1. keys: n random int32 in [INT32_MIN, INT32_MAX) (random_'s 32-bit path, one word each) when
//     `bits` <= 32, else int64 in [INT64_MIN, INT64_MAX) (two words each), from the device's
//     generator with random_'s grid (random_launch.h, Note [Philox streams]);
//  2. a stable radix sort of (key, i) pairs on the keys' low `bits` bits, cub's
//     DeviceRadixSort::SortPairs (signed keys: cub flips the sign bit, which is among the sorted
//     bits only when bits is the key's width), where bits = ceil(log2(n - (6 n^2 + 1) /
//     (12 log 0.9))): so few that keys collide with probability at most 0.1;
//  3. the islands: each run of equal sorted (masked) keys is shuffled by its first thread with
//     Fisher-Yates from the back, r = curand() % (i + 1) at curand_init(seed, first index, offset)
//     of a launch that moves the generator's offset by n (rounded up to 4).
// ember does the same, sorting the indices as int64 and converting them to the result's dtype
// with a copy (PyTorch sorts the arange in that dtype: the same values, exact there), so for one
// seed, offset and SM count the permutation is PyTorch's. What differs: n is capped at
// 2^31 - 1 as PyTorch's int counts cap it; for bits = 64 (n above ~1.4e9, beyond that cap)
// PyTorch's mask (1UL << 64) - 1 is undefined behaviour, ember's would be all ones.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ember::cuda::kernels {

/// Threads per block of the randperm launches (the islands kernel's, PyTorch's 512).
inline constexpr uint32_t kRandpermThreads = 512;

struct RandpermLaunch {
  enum class Phase : int32_t {
    iota,     // perm[i] = i, the sort's values
    islands,  // step 3 over the sorted keys, perm shuffled in place
  };
  Phase phase;
  int32_t key_bytes;  // islands: 4 (int32 keys) or 8 (int64 keys)
  int64_t n;
  uint32_t blocks, threads;
  const void* keys;       // islands: the sorted keys
  uint64_t mask;          // islands: the sorted bits, (1 << bits) - 1 (all ones for bits = 64)
  int64_t* perm;          // n int64
  uint64_t seed, offset;  // islands: the generator's Philox inputs
};

/// Step 2: (keys_out, values_out) = (keys_in, values_in) stably sorted by the keys' low `bits`
/// bits, cub's order for signed keys.
struct RandpermSort {
  int64_t n;          // at most 2^31 - 1
  int32_t key_bytes;  // 4 or 8
  int32_t bits;
  const void* keys_in;
  void* keys_out;
  const int64_t* values_in;
  int64_t* values_out;
  void* scratch;  // the device's sort: cub's temporary storage (randperm_sort_scratch bytes)
  size_t scratch_bytes;
};

/// Queues the kernel on `stream` (a cudaStream_t); returns the launch's cudaError_t.
int launch_randperm(const RandpermLaunch& launch, void* stream);
/// The scratch bytes cub's sort of `sort` needs, in *bytes; returns the cudaError_t.
int randperm_sort_scratch(const RandpermSort& sort, size_t* bytes);
/// Queues cub's sort on `stream` with sort.scratch; returns the cudaError_t.
int launch_randperm_sort(const RandpermSort& sort, void* stream);

}  // namespace ember::cuda::kernels
