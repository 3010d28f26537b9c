// The host half of the CUDA scan kernels, apart from the CUDA build so that every build compiles
// and tests it: a cumsum or cumprod call becomes a kernels::ScanLaunch. No device is touched.
#pragma once

#include "backend/cuda/scan_launch.h"
#include "ember/tensor.h"

namespace ember::cuda {

/// y = cumsum (or cumprod, `prod`) of x along dim (wrapped; 0 for a 0-d x), as ScanKernels take
/// them: x and y contiguous of one shape and dtype; `[op] the cuda backend has no <dtype> kernel
/// yet` for int8, int16, uint8 and bool.
kernels::ScanLaunch plan_scan_launch(const char* op, const Tensor& y, const Tensor& x, int64_t dim,
                                     bool prod);

}  // namespace ember::cuda
