// The CPU emulation of optim.cu: the same block body over a grid loop (launch.cuh).
#include "backend/cuda/emulation.h"
#include "backend/cuda/launch.cuh"
#include "backend/cuda/optim_body.cuh"

namespace ember::cuda::kernels {

void emulate_optim(const OptimLaunch& l) { emulate_launch(l, "optimizer"); }

}  // namespace ember::cuda::kernels
