// The CPU emulation of copy.cu: the same block bodies over a grid loop (launch.cuh).
#include "backend/cuda/copy_body.cuh"
#include "backend/cuda/emulation.h"
#include "backend/cuda/launch.cuh"

namespace ember::cuda::kernels {

void emulate_copy(const CopyLaunch& l) { emulate_launch(l, "copy"); }
void emulate_fill(const FillLaunch& l) { emulate_launch(l, "fill"); }

}  // namespace ember::cuda::kernels
