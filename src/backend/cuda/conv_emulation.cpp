// The CPU emulation of conv.cu: the same block body over a grid loop (launch.cuh).
#include "backend/cuda/conv_body.cuh"
#include "backend/cuda/emulation.h"
#include "backend/cuda/launch.cuh"

namespace ember::cuda::kernels {

void emulate_im2col(const Im2colLaunch& l) { emulate_launch(l, "im2col"); }

}  // namespace ember::cuda::kernels
