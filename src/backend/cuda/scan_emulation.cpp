// The CPU emulation of scan.cu: the same block body over a grid loop (launch.cuh).
#include "backend/cuda/emulation.h"
#include "backend/cuda/launch.cuh"
#include "backend/cuda/scan_body.cuh"

namespace ember::cuda::kernels {

void emulate_scan(const ScanLaunch& l) { emulate_launch(l, "scan"); }

}  // namespace ember::cuda::kernels
