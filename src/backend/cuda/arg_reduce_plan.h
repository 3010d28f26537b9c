// The host half of the CUDA max/min with indices (arg_reduce_launch.h), apart from the CUDA
// build so that every build compiles and tests it. No device is touched.
#pragma once

#include "backend/cuda/arg_reduce_launch.h"
#include "ember/tensor.h"

namespace ember::cuda {

/// The launch of max (is_max) or min along the last dim of `rows` (contiguous (M, D), D > 0, a
/// floating dtype) into values (M, rows' dtype) and indices (M, int64), both contiguous:
/// `[op] ...` naming what was expected otherwise.
kernels::ArgReduceLaunch plan_arg_reduce_launch(const char* op, bool is_max, const Tensor& values,
                                                const Tensor& indices, const Tensor& rows);

}  // namespace ember::cuda
