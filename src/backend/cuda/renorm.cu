// The CUDA embedding_renorm kernel: renorm_body.cuh's body, one per floating storage type.
#include "backend/cuda/launch.cuh"
#include "backend/cuda/renorm_body.cuh"

namespace ember::cuda::kernels {

int launch_renorm(const RenormLaunch& l, void* stream) { return launch_grid(l, stream); }

}  // namespace ember::cuda::kernels
