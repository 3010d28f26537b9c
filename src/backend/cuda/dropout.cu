// The CUDA fused dropout kernels: dropout_body.cuh's bodies, one per floating storage type.
#include "backend/cuda/dropout_body.cuh"
#include "backend/cuda/launch.cuh"

namespace ember::cuda::kernels {

int launch_dropout(const DropoutLaunch& l, void* stream) { return launch_grid(l, stream); }
int launch_dropout_backward(const DropoutBackwardLaunch& l, void* stream) {
  return launch_grid(l, stream);
}

}  // namespace ember::cuda::kernels
