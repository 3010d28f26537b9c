// The CPU emulation of loss.cu: the same block bodies over a grid loop (launch.cuh).
#include "backend/cuda/emulation.h"
#include "backend/cuda/launch.cuh"
#include "backend/cuda/loss_body.cuh"

namespace ember::cuda::kernels {

void emulate_class_loss(const ClassLossLaunch& l) { emulate_launch(l, "class loss"); }

}  // namespace ember::cuda::kernels
