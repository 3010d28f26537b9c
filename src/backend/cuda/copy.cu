// The CUDA copy and fill kernels: copy_body.cuh's block bodies, one instantiation per
// (destination, source) storage type for copies and one per element size for fills.
#include <cuda_runtime.h>

#include "backend/cuda/copy_body.cuh"

namespace ember::cuda::kernels {
namespace {

template <class D, class S>
__global__ void copy_kernel(const __grid_constant__ CopyLaunch l) {
  copy_block<D, S>(DeviceBlock{}, l);
}

template <class U>
__global__ void fill_kernel(const __grid_constant__ FillLaunch l) {
  fill_block<U>(DeviceBlock{}, l);
}

}  // namespace

int launch_copy(const CopyLaunch& l, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  int status = int(cudaErrorInvalidValue);
  with_type(l.dst, [&](auto d) {
    with_type(l.src, [&](auto src) {
      copy_kernel<typename decltype(d)::type, typename decltype(src)::type>
          <<<l.blocks, l.threads, 0, s>>>(l);
      status = int(cudaGetLastError());
    });
  });
  return status;
}

int launch_fill(const FillLaunch& l, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  int status = int(cudaErrorInvalidValue);
  with_item_bits(l.itemsize, [&](auto u) {
    fill_kernel<typename decltype(u)::type><<<l.blocks, l.threads, 0, s>>>(l);
    status = int(cudaGetLastError());
  });
  return status;
}

}  // namespace ember::cuda::kernels
