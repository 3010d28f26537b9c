// The CUDA resizing kernels: resize_body.cuh's bodies, interpolate and pad's backward per floating
// storage type, pad's forward per element size.
#include "backend/cuda/launch.cuh"
#include "backend/cuda/resize_body.cuh"

namespace ember::cuda::kernels {

int launch_resize(const ResizeLaunch& l, void* stream) { return launch_grid(l, stream); }
int launch_pad(const PadLaunch& l, void* stream) { return launch_grid(l, stream); }

}  // namespace ember::cuda::kernels
