// Bulk float16/bfloat16 <-> float32 conversion of contiguous runs, for kernels that compute a
// reduced-precision op in float32 (GEMM today). float16 uses F16C's 8-wide conversions when the
// CPU has them (checked at run time), else ember's scalar conversion; both round to nearest
// even and keep NaN/Inf (Note [Half conversion] in core/half.cpp), so results do not depend on
// the path.
#pragma once

#include <cstdint>

#include "ember/half.h"

namespace ember::cpu {

void to_float(const Half* src, float* dst, int64_t n);
void to_float(const BFloat16* src, float* dst, int64_t n);
void from_float(const float* src, Half* dst, int64_t n);
void from_float(const float* src, BFloat16* dst, int64_t n);

}  // namespace ember::cpu
