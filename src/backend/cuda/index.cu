// The CUDA advanced indexing's offsets kernel: index_body.cuh's body (step 2 is gather.cu's).
#include "backend/cuda/index_body.cuh"
#include "backend/cuda/launch.cuh"

namespace ember::cuda::kernels {

int launch_index_offsets(const IndexOffsetsLaunch& l, void* stream) {
  return launch_grid(l, stream);
}

}  // namespace ember::cuda::kernels
