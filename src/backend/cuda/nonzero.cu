// The CUDA nonzero's count and write kernels: nonzero_body.cuh's body, one per storage type.
#include "backend/cuda/launch.cuh"
#include "backend/cuda/nonzero_body.cuh"

namespace ember::cuda::kernels {

int launch_nonzero(const NonzeroLaunch& l, void* stream) { return launch_grid(l, stream); }

}  // namespace ember::cuda::kernels
