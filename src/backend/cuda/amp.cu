// GradScaler's CUDA kernel: amp_body.cuh's block body, one kernel per floating storage type.
#include <cuda_runtime.h>

#include "backend/cuda/amp_body.cuh"

namespace ember::cuda::kernels {
namespace {

template <class S>
__global__ void unscale_kernel(const __grid_constant__ UnscaleLaunch l) {
  unscale_block<S>(DeviceBlock{}, l);
}

}  // namespace

int launch_unscale(const UnscaleLaunch& l, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  int status = int(cudaErrorInvalidValue);
  with_floating_type(l.type, [&](auto type) {
    unscale_kernel<typename decltype(type)::type><<<l.blocks, l.threads, 0, s>>>(l);
    status = int(cudaGetLastError());
  });
  return status;
}

}  // namespace ember::cuda::kernels
