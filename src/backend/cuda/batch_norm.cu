// The CUDA batch norm kernels: batch_norm_body.cuh's block bodies, one per floating storage type.
#include "backend/cuda/batch_norm_body.cuh"
#include "backend/cuda/launch.cuh"

namespace ember::cuda::kernels {

int launch_batch_norm(const BatchNormLaunch& l, void* stream) { return launch_grid(l, stream); }

}  // namespace ember::cuda::kernels
