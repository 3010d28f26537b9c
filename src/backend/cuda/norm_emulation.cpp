// The CPU emulation of norm.cu: the same block bodies over a grid loop (launch.cuh).
#include "backend/cuda/emulation.h"
#include "backend/cuda/launch.cuh"
#include "backend/cuda/norm_body.cuh"

namespace ember::cuda::kernels {

void emulate_row_norm(const RowNormLaunch& l) { emulate_launch(l, "row norm"); }
void emulate_row_norm_backward(const RowNormBackwardLaunch& l) {
  emulate_launch(l, "row norm backward");
}

}  // namespace ember::cuda::kernels
