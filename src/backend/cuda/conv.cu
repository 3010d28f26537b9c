// The CUDA convolution's column kernels: conv_body.cuh's body, one per floating storage type.
#include "backend/cuda/conv_body.cuh"
#include "backend/cuda/launch.cuh"

namespace ember::cuda::kernels {

int launch_im2col(const Im2colLaunch& l, void* stream) { return launch_grid(l, stream); }

}  // namespace ember::cuda::kernels
