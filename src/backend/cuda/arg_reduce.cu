// The CUDA max/min with indices: arg_reduce_body.cuh's block body, one per floating type.
#include "backend/cuda/arg_reduce_body.cuh"
#include "backend/cuda/launch.cuh"

namespace ember::cuda::kernels {

int launch_arg_reduce(const ArgReduceLaunch& l, void* stream) { return launch_grid(l, stream); }

}  // namespace ember::cuda::kernels
