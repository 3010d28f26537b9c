// GradScaler's CUDA kernel: amp_body.cuh's block body, one kernel per floating storage type.
#include "backend/cuda/amp_body.cuh"
#include "backend/cuda/launch.cuh"

namespace ember::cuda::kernels {

int launch_unscale(const UnscaleLaunch& l, void* stream) { return launch_grid(l, stream); }

}  // namespace ember::cuda::kernels
