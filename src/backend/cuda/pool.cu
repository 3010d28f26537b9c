// The CUDA max pooling kernel: pool_body.cuh's body, one per floating storage type.
#include "backend/cuda/launch.cuh"
#include "backend/cuda/pool_body.cuh"

namespace ember::cuda::kernels {

int launch_max_pool(const MaxPoolLaunch& l, void* stream) { return launch_grid(l, stream); }

}  // namespace ember::cuda::kernels
