// The CPU emulation of softmax.cu: the same block bodies over a grid loop (launch.cuh).
#include "backend/cuda/emulation.h"
#include "backend/cuda/launch.cuh"
#include "backend/cuda/softmax_body.cuh"

namespace ember::cuda::kernels {

void emulate_softmax(const SoftmaxLaunch& l) { emulate_launch(l, "softmax"); }
void emulate_softmax_backward(const SoftmaxBackwardLaunch& l) {
  emulate_launch(l, "softmax backward");
}

}  // namespace ember::cuda::kernels
