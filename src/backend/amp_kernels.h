// Automatic mixed precision's kernels (src/amp/grad_scaler.cpp): PyTorch's
// _amp_foreach_non_finite_check_and_unscale_. Its _amp_update_scale_ has no entry: ember keeps
// GradScaler's scale and growth tracker on the host (see grad_scaler.cpp), so the update is a few
// host operations, not a kernel.
#pragma once

#include <span>

#include "ember/tensor.h"

namespace ember::backend {

struct AmpKernels {
  /// Multiplies every element of every tensor by inv_scale in place, in the op math type (float,
  /// double for double; nothing is written when inv_scale == 1), and returns whether any element
  /// was inf or NaN. The tensors are contiguous and floating, all on devices of this backend's
  /// type (any indices: a backend reads each device's verdict back once, after all its tensors).
  bool (*non_finite_check_and_unscale_)(std::span<const Tensor> tensors, float inv_scale) = nullptr;
};

}  // namespace ember::backend
