// The CUDA layer_norm and rms_norm kernels: norm_body.cuh's block bodies, one instantiation per
// floating storage type.
#include "backend/cuda/launch.cuh"
#include "backend/cuda/norm_body.cuh"

namespace ember::cuda::kernels {

int launch_row_norm(const RowNormLaunch& l, void* stream) { return launch_grid(l, stream); }
int launch_row_norm_backward(const RowNormBackwardLaunch& l, void* stream) {
  return launch_grid(l, stream);
}

}  // namespace ember::cuda::kernels
