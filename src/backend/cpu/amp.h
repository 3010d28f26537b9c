// Mixed-precision kernels on the CPU: GradScaler's fused inf/NaN check and unscale.
#pragma once

#include <span>

#include "ember/tensor.h"

namespace ember::cpu {

/// Multiplies every element of every tensor by inv_scale in place (in float32 arithmetic, as
/// PyTorch's _amp_foreach_non_finite_check_and_unscale_; untouched when inv_scale == 1) and
/// returns whether any element was inf or NaN. Each element is read and written once: the check
/// and the multiply are one pass. Tensors must be floating and contiguous.
bool non_finite_check_and_unscale_(std::span<const Tensor> tensors, float inv_scale);

}  // namespace ember::cpu
