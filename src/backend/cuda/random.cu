// The CUDA random fills' kernel: random_body.cuh's body, one per storage type.
#include "backend/cuda/launch.cuh"
#include "backend/cuda/random_body.cuh"

namespace ember::cuda::kernels {

int launch_random(const RandomLaunch& l, void* stream) { return launch_grid(l, stream); }

}  // namespace ember::cuda::kernels
