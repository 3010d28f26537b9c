// The CUDA fused optimizer updates: optim_body.cuh's block body, one kernel per dtype.
#include <cuda_runtime.h>

#include "backend/cuda/optim_body.cuh"

namespace ember::cuda::kernels {
namespace {

template <class T>
__global__ void optim_kernel(const __grid_constant__ OptimLaunch l) {
  optim_block<T>(DeviceBlock{}, l);
}

}  // namespace

int launch_optim(const OptimLaunch& l, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  int status = int(cudaErrorInvalidValue);
  with_optim_type(l, [&](auto type) {
    optim_kernel<typename decltype(type)::type><<<l.blocks, l.threads, 0, s>>>(l);
    status = int(cudaGetLastError());
  });
  return status;
}

}  // namespace ember::cuda::kernels
