// The CUDA cumsum and cumprod kernels: scan_body.cuh's body, one per storage type.
#include "backend/cuda/launch.cuh"
#include "backend/cuda/scan_body.cuh"

namespace ember::cuda::kernels {

int launch_scan(const ScanLaunch& l, void* stream) { return launch_grid(l, stream); }

}  // namespace ember::cuda::kernels
