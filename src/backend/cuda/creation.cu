// The CUDA creation kernels: creation_body.cuh's body, one per storage type.
#include "backend/cuda/creation_body.cuh"
#include "backend/cuda/launch.cuh"

namespace ember::cuda::kernels {

int launch_range(const RangeLaunch& l, void* stream) { return launch_grid(l, stream); }

}  // namespace ember::cuda::kernels
