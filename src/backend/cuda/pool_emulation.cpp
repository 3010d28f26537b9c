// The CPU emulation of pool.cu: the same block body over a grid loop (launch.cuh).
#include "backend/cuda/emulation.h"
#include "backend/cuda/launch.cuh"
#include "backend/cuda/pool_body.cuh"

namespace ember::cuda::kernels {

void emulate_max_pool(const MaxPoolLaunch& l) { emulate_launch(l, "max_pool2d"); }
void emulate_avg_pool(const AvgPoolLaunch& l) { emulate_launch(l, "avg_pool2d"); }

}  // namespace ember::cuda::kernels
