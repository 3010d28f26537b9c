// Scans as free functions (the Tensor methods are in tensor.h): cumulative sums and products
// along a dim.
#pragma once

#include "ember/tensor.h"

namespace ember {

inline Tensor cumsum(const Tensor& t, int64_t dim) { return t.cumsum(dim); }
inline Tensor cumprod(const Tensor& t, int64_t dim) { return t.cumprod(dim); }

}  // namespace ember
