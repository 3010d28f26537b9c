// The CUDA randperm's device half (Note [CUDA randperm] in randperm_launch.h): randperm_body.cuh's
// iota and islands bodies, and the stable radix sort between them, which is cub's
// DeviceRadixSort::SortPairs as in PyTorch (begin bit 0, end bit `bits`).
#include <cub/device/device_radix_sort.cuh>

#include "backend/cuda/launch.cuh"
#include "backend/cuda/randperm_body.cuh"

namespace ember::cuda::kernels {
namespace {

// One cub call: the scratch size query when scratch is null, else the sort.
template <class K>
cudaError_t sort_pairs(const RandpermSort& s, void* scratch, size_t& bytes, cudaStream_t stream) {
  return cub::DeviceRadixSort::SortPairs(scratch, bytes, static_cast<const K*>(s.keys_in),
                                         static_cast<K*>(s.keys_out), s.values_in, s.values_out,
                                         int(s.n), 0, int(s.bits), stream);
}

cudaError_t sort_call(const RandpermSort& s, void* scratch, size_t& bytes, cudaStream_t stream) {
  if (s.key_bytes == 4) return sort_pairs<int32_t>(s, scratch, bytes, stream);
  if (s.key_bytes == 8) return sort_pairs<int64_t>(s, scratch, bytes, stream);
  return cudaErrorInvalidValue;
}

}  // namespace

int launch_randperm(const RandpermLaunch& l, void* stream) { return launch_grid(l, stream); }

int randperm_sort_scratch(const RandpermSort& s, size_t* bytes) {
  *bytes = 0;
  return int(sort_call(s, nullptr, *bytes, nullptr));
}

int launch_randperm_sort(const RandpermSort& s, void* stream) {
  if (s.scratch == nullptr) return int(cudaErrorInvalidValue);
  size_t bytes = s.scratch_bytes;
  return int(sort_call(s, s.scratch, bytes, static_cast<cudaStream_t>(stream)));
}

}  // namespace ember::cuda::kernels
