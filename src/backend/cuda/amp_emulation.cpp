// The CPU emulation of amp.cu: the same block body over a grid loop (launch.cuh).
#include "backend/cuda/amp_body.cuh"
#include "backend/cuda/emulation.h"
#include "backend/cuda/launch.cuh"

namespace ember::cuda::kernels {

void emulate_unscale(const UnscaleLaunch& l) { emulate_launch(l, "unscale"); }

}  // namespace ember::cuda::kernels
