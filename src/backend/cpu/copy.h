// CPU kernels for copies and fills. Shapes are already equal (src expanded by the front end).
#pragma once

#include "backend/cpu/level.h"
#include "ember/scalar.h"
#include "ember/tensor.h"

namespace EMBER_CPU_NS {

/// dst[i] = convert(src[i]) for every element; any layouts, any dtypes.
void copy_kernel(const Tensor& dst, const Tensor& src);
/// dst[i] = value converted to dst's dtype.
void fill_kernel(const Tensor& dst, Scalar value);
/// Whether a and b (contiguous, one dtype and shape) hold equal values (NaN equals nothing).
bool equal_kernel(const Tensor& a, const Tensor& b);

}  // namespace EMBER_CPU_NS
