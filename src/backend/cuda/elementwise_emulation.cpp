// The CPU emulation of elementwise.cu: the same block body over a grid loop (launch.cuh).
#include "backend/cuda/elementwise_body.cuh"
#include "backend/cuda/emulation.h"
#include "backend/cuda/launch.cuh"

namespace ember::cuda::kernels {

void emulate_elementwise(const Launch& l) { emulate_launch(l, "elementwise"); }

}  // namespace ember::cuda::kernels
