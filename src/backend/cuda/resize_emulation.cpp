// The CPU emulation of resize.cu: the same block bodies over a grid loop (launch.cuh).
#include "backend/cuda/emulation.h"
#include "backend/cuda/launch.cuh"
#include "backend/cuda/resize_body.cuh"

namespace ember::cuda::kernels {

void emulate_resize(const ResizeLaunch& l) { emulate_launch(l, "interpolate"); }
void emulate_pad(const PadLaunch& l) { emulate_launch(l, "pad"); }

}  // namespace ember::cuda::kernels
