// The CUDA softmax and log_softmax kernels: softmax_body.cuh's block body, one block per line.
#include <cuda_runtime.h>

#include "backend/cuda/softmax_body.cuh"

namespace ember::cuda::kernels {
namespace {

template <class T>
__global__ void softmax_kernel(const __grid_constant__ SoftmaxLaunch l) {
  softmax_block<T>(DeviceBlock{}, l);
}

}  // namespace

int launch_softmax(const SoftmaxLaunch& l, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  int status = int(cudaErrorInvalidValue);
  with_softmax_type(l, [&](auto type) {
    softmax_kernel<typename decltype(type)::type><<<l.blocks, l.threads, 0, s>>>(l);
    status = int(cudaGetLastError());
  });
  return status;
}

}  // namespace ember::cuda::kernels
