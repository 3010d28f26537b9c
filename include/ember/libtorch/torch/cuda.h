// torch::cuda::is_available(), device_count(), synchronize(): ember's cuda namespace; and
// cudnn_is_available().
#pragma once

#include "ember/cuda.h"
#include "torch/types.h"

namespace torch::cuda {
/// A CUDA build runs its convolutions through cuDNN (src/backend/cuda/conv.cpp), so cuDNN is
/// available exactly when a CUDA device is.
inline bool cudnn_is_available() { return ember::cuda::is_available(); }
}  // namespace torch::cuda
