// The CPU emulation of gather.cu: the same block bodies over a grid loop (launch.cuh).
#include "backend/cuda/emulation.h"
#include "backend/cuda/gather_body.cuh"
#include "backend/cuda/launch.cuh"

namespace ember::cuda::kernels {

void emulate_gather(const GatherLaunch& l) { emulate_launch(l, "gather"); }
void emulate_select(const SelectLaunch& l) { emulate_launch(l, "index_select"); }
void emulate_check_index(const CheckIndexLaunch& l) { emulate_launch(l, "index check"); }

}  // namespace ember::cuda::kernels
