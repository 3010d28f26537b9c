// The reduction front end shared by sum/mean/prod/amax/norm/...: dims normalisation, keepdim,
// layout planning (Note [Reduction layouts] in reduce.cpp) and dtype dispatch.
#pragma once

#include <optional>

#include "ember/tensor.h"

namespace ember {

/// Normalises a dim list for a tensor of rank ndim (negative dims wrap; duplicates throw).
/// An empty list means every dim, as in PyTorch.
DimVector reduction_dims(IntArrayRef dims, int64_t ndim, const char* op);
/// Output shape of reducing `dims` (normalised) of `sizes`.
DimVector reduced_shape(IntArrayRef sizes, IntArrayRef dims, bool keepdim);
/// Backward of a reduction: the gradient of the reduced result brought back to the input's
/// `sizes` (dims put back when keepdim was false, then expanded). Differentiable.
Tensor unreduce(const Tensor& grad, IntArrayRef sizes, IntArrayRef dims, bool keepdim);

}  // namespace ember
