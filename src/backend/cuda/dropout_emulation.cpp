// The CPU emulation of dropout.cu: the same block bodies over a grid loop (launch.cuh).
#include "backend/cuda/dropout_body.cuh"
#include "backend/cuda/emulation.h"
#include "backend/cuda/launch.cuh"

namespace ember::cuda::kernels {

void emulate_dropout(const DropoutLaunch& l) { emulate_launch(l, "dropout"); }
void emulate_dropout_backward(const DropoutBackwardLaunch& l) {
  emulate_launch(l, "dropout backward");
}

}  // namespace ember::cuda::kernels
