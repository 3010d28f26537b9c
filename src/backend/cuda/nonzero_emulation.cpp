// The CPU emulation of nonzero.cu: the count and write phases over a grid loop (launch.cuh).
#include "backend/cuda/emulation.h"
#include "backend/cuda/launch.cuh"
#include "backend/cuda/nonzero_body.cuh"

namespace ember::cuda::kernels {

void emulate_nonzero(const NonzeroLaunch& l) { emulate_launch(l, "nonzero"); }

}  // namespace ember::cuda::kernels
