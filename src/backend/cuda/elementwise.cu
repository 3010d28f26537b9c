// The CUDA elementwise kernels: elementwise_body.cuh's block body launched once per (storage
// type, functor) over the strided layout of elementwise_launch.h.
#include <cuda_runtime.h>

#include "backend/cuda/elementwise_body.cuh"

namespace ember::cuda::kernels {
namespace {

template <class S, int NIn, class F>
__global__ void map_kernel(F f, const __grid_constant__ Launch l) {
  map_block<S, NIn>(DeviceBlock{}, f, l);
}

}  // namespace

int launch_elementwise(const Launch& l, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  int status = int(cudaErrorInvalidValue);  // the plan only asks for the floating types
  with_floating_type(l.type, [&](auto type) {
    with_op(l.op, [&](auto f, auto arity) {
      map_kernel<typename decltype(type)::type, decltype(arity)::value>
          <<<l.blocks, l.threads, 0, s>>>(f, l);
      status = int(cudaGetLastError());
    });
  });
  return status;
}

}  // namespace ember::cuda::kernels
