// The CUDA fused optimizer updates: optim_body.cuh's block body, one kernel per dtype.
#include "backend/cuda/launch.cuh"
#include "backend/cuda/optim_body.cuh"

namespace ember::cuda::kernels {

int launch_optim(const OptimLaunch& l, void* stream) { return launch_grid(l, stream); }

}  // namespace ember::cuda::kernels
