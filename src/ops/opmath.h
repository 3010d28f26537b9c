// PyTorch's opmath type: the dtype the nn kernels compute and keep their statistics in.
#pragma once

#include "ember/dtype.h"

namespace ember {

/// float64 for float64, float32 for every other floating dtype (float16 and bfloat16 included).
inline Dtype opmath_dtype(Dtype t) { return t == kFloat64 ? kFloat64 : kFloat32; }

}  // namespace ember
