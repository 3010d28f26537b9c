// GradScaler's inf/NaN check and unscale for CUDA gradients (amp/grad_scaler.cpp calls it for
// them, and backend/cpu/amp.h's for CPU ones). A CUDA build links amp.cpp (amp.cu's kernel); a
// CPU-only build links no_cuda.cpp, where it throws.
#pragma once

#include <span>

#include "ember/tensor.h"

namespace ember::cuda {

/// backend/cpu/amp.h's non_finite_check_and_unscale_ for contiguous floating CUDA tensors: each
/// device's flag is read back once all of its tensors are queued (one synchronisation).
bool non_finite_check_and_unscale_(std::span<const Tensor> tensors, float inv_scale);

}  // namespace ember::cuda
