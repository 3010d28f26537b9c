// The CUDA reduction kernels: reduce_body.cuh's block bodies, the per-output pass over a
// (blocks, splits) grid and, for split reductions, the pass that combines each output's row.
#include <cuda_runtime.h>

#include "backend/cuda/reduce_body.cuh"

namespace ember::cuda::kernels {
namespace {

template <class S, class Acc, class R>
__global__ void reduce_kernel(R r, const __grid_constant__ ReduceLaunch l) {
  reduce_block<S, Acc>(DeviceBlock{}, r, l);
}

template <class S, class Acc, class R>
__global__ void combine_kernel(R r, const __grid_constant__ ReduceLaunch l) {
  combine_block<S, Acc>(DeviceBlock{}, r, l);
}

}  // namespace

int launch_reduce(const ReduceLaunch& l, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  int status = int(cudaErrorInvalidValue);  // the plan only asks for the floating types
  with_reduction(l, [&](auto type, auto acc, auto r) {
    using S = typename decltype(type)::type;
    using Acc = typename decltype(acc)::type;
    reduce_kernel<S, Acc><<<dim3(l.blocks, l.splits), l.threads, 0, s>>>(r, l);
    if (l.splits > 1) combine_kernel<S, Acc><<<combine_blocks(l), l.threads, 0, s>>>(r, l);
    status = int(cudaGetLastError());
  });
  return status;
}

}  // namespace ember::cuda::kernels
