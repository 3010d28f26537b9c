// torch::cuda::is_available(), device_count(), synchronize(): ember's cuda namespace; and
// cudnn_is_available().
#pragma once

#include "torch/types.h"

namespace torch::cuda {
/// False: ember's CUDA backend has no cuDNN path (its kernels are its own).
inline bool cudnn_is_available() { return false; }
}  // namespace torch::cuda
