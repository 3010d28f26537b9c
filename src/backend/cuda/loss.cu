// The CUDA class-index loss kernels: loss_body.cuh's block bodies, one per compute dtype.
#include "backend/cuda/launch.cuh"
#include "backend/cuda/loss_body.cuh"

namespace ember::cuda::kernels {

int launch_class_loss(const ClassLossLaunch& l, void* stream) { return launch_grid(l, stream); }

}  // namespace ember::cuda::kernels
