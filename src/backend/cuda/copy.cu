// The CUDA copy and fill kernels: copy_body.cuh's block bodies, one instantiation per
// (destination, source) storage type for copies and one per element size for fills.
#include "backend/cuda/copy_body.cuh"
#include "backend/cuda/launch.cuh"

namespace ember::cuda::kernels {

int launch_copy(const CopyLaunch& l, void* stream) { return launch_grid(l, stream); }
int launch_fill(const FillLaunch& l, void* stream) { return launch_grid(l, stream); }

}  // namespace ember::cuda::kernels
