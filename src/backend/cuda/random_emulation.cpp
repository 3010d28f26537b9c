// The CPU emulation of random.cu: the same block body over a grid loop (launch.cuh).
#include "backend/cuda/emulation.h"
#include "backend/cuda/launch.cuh"
#include "backend/cuda/random_body.cuh"

namespace ember::cuda::kernels {

void emulate_random(const RandomLaunch& l) { emulate_launch(l, "random"); }

}  // namespace ember::cuda::kernels
