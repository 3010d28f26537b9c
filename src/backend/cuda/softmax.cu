// The CUDA softmax and log_softmax kernels and their backwards: softmax_body.cuh's block bodies,
// one block per line.
#include "backend/cuda/launch.cuh"
#include "backend/cuda/softmax_body.cuh"

namespace ember::cuda::kernels {

int launch_softmax(const SoftmaxLaunch& l, void* stream) { return launch_grid(l, stream); }
int launch_softmax_backward(const SoftmaxBackwardLaunch& l, void* stream) {
  return launch_grid(l, stream);
}

}  // namespace ember::cuda::kernels
