// The CUDA sort and topk kernels: sort_body.cuh's block body, one per storage type.
#include "backend/cuda/launch.cuh"
#include "backend/cuda/sort_body.cuh"

namespace ember::cuda::kernels {

int launch_sort(const SortLaunch& l, void* stream) { return launch_grid(l, stream); }

}  // namespace ember::cuda::kernels
