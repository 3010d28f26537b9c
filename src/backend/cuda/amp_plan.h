// The host half of GradScaler's CUDA kernel, apart from the CUDA build so that every build
// compiles and tests it: one gradient becomes a kernels::UnscaleLaunch. No device is touched.
#pragma once

#include <cstdint>

#include "backend/cuda/amp_launch.h"
#include "ember/tensor.h"

namespace ember::cuda {

/// The launch over `t` (contiguous, float32/float64/float16/bfloat16) that multiplies it by
/// inv_scale in place and sets *found_inf (device memory) to 1 on an inf or NaN.
kernels::UnscaleLaunch plan_unscale_launch(const Tensor& t, float inv_scale, int32_t* found_inf);

}  // namespace ember::cuda
