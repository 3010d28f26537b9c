// The CPU emulation of creation.cu: the same block body over a grid loop (launch.cuh).
#include "backend/cuda/creation_body.cuh"
#include "backend/cuda/emulation.h"
#include "backend/cuda/launch.cuh"

namespace ember::cuda::kernels {

void emulate_range(const RangeLaunch& l) { emulate_launch(l, "range"); }

}  // namespace ember::cuda::kernels
