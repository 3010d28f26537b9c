// The CPU emulation of sort.cu: the same block body over a grid loop (launch.cuh).
#include "backend/cuda/emulation.h"
#include "backend/cuda/launch.cuh"
#include "backend/cuda/sort_body.cuh"

namespace ember::cuda::kernels {

void emulate_sort(const SortLaunch& l) { emulate_launch(l, "sort"); }

}  // namespace ember::cuda::kernels
