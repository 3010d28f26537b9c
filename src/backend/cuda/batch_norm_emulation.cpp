// The CPU emulation of batch_norm.cu: the same block bodies over a grid loop (launch.cuh).
#include "backend/cuda/batch_norm_body.cuh"
#include "backend/cuda/emulation.h"
#include "backend/cuda/launch.cuh"

namespace ember::cuda::kernels {

void emulate_batch_norm(const BatchNormLaunch& l) { emulate_launch(l, "batch norm"); }

}  // namespace ember::cuda::kernels
