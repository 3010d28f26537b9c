// The CPU emulation of renorm.cu: the same block body over a grid loop (launch.cuh).
#include "backend/cuda/emulation.h"
#include "backend/cuda/launch.cuh"
#include "backend/cuda/renorm_body.cuh"

namespace ember::cuda::kernels {

void emulate_renorm(const RenormLaunch& l) { emulate_launch(l, "embedding_renorm"); }

}  // namespace ember::cuda::kernels
