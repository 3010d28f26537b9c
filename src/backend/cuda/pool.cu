// The CUDA pooling kernels: pool_body.cuh's bodies, one per floating storage type.
#include "backend/cuda/launch.cuh"
#include "backend/cuda/pool_body.cuh"

namespace ember::cuda::kernels {

int launch_max_pool(const MaxPoolLaunch& l, void* stream) { return launch_grid(l, stream); }
int launch_avg_pool(const AvgPoolLaunch& l, void* stream) { return launch_grid(l, stream); }

}  // namespace ember::cuda::kernels
