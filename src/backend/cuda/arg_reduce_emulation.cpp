// The CPU emulation of arg_reduce.cu: the block body over a grid loop (launch.cuh).
#include "backend/cuda/arg_reduce_body.cuh"
#include "backend/cuda/emulation.h"
#include "backend/cuda/launch.cuh"

namespace ember::cuda::kernels {

void emulate_arg_reduce(const ArgReduceLaunch& l) { emulate_launch(l, "max/min with indices"); }

}  // namespace ember::cuda::kernels
