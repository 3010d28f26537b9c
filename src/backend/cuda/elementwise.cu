// The CUDA elementwise kernels: elementwise_body.cuh's block body launched once per (storage
// type, functor) over the strided layout of elementwise_launch.h.
#include "backend/cuda/elementwise_body.cuh"
#include "backend/cuda/launch.cuh"

namespace ember::cuda::kernels {

int launch_elementwise(const Launch& l, void* stream) { return launch_grid(l, stream); }

}  // namespace ember::cuda::kernels
