// The scan family's kernels (src/ops/scan.cpp): what a backend implements so that cumsum and
// cumprod run on its device.
#pragma once

#include <cstdint>

#include "ember/tensor.h"

namespace ember::backend {

/// y = the inclusive scan of x along `dim` (wrapped; 0 for a 0-d x). x is contiguous and already
/// of the result's dtype (int64 for integer inputs unless a dtype was given); y is new,
/// contiguous, of x's shape and dtype, on its device. Floating scans accumulate in double and
/// round once per output (PyTorch's CPU accumulation type).
using ScanFn = void (*)(const char* op, const Tensor& y, const Tensor& x, int64_t dim);

/// One backend's scan kernels; a null entry is `[op] no kernel for <device>`.
struct ScanKernels {
  ScanFn cumsum = nullptr;
  ScanFn cumprod = nullptr;
};

}  // namespace ember::backend
