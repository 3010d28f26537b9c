// The CPU emulation of softmax.cu: the same block body over a grid loop (launch.cuh).
#include "backend/cuda/emulation.h"
#include "backend/cuda/launch.cuh"
#include "backend/cuda/softmax_body.cuh"

namespace ember::cuda::kernels {

void emulate_softmax(const SoftmaxLaunch& l) { emulate_launch(l, "softmax"); }

}  // namespace ember::cuda::kernels
