// The CPU emulation of index.cu: the offsets body over a grid loop (launch.cuh).
#include "backend/cuda/emulation.h"
#include "backend/cuda/index_body.cuh"
#include "backend/cuda/launch.cuh"

namespace ember::cuda::kernels {

void emulate_index_offsets(const IndexOffsetsLaunch& l) { emulate_launch(l, "index offsets"); }

}  // namespace ember::cuda::kernels
