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
/// A reduced tensor with its reduced `dims` of `sizes` put back as size 1 (when !keepdim), so it
/// broadcasts against the input. Differentiable.
Tensor keep_reduced(const Tensor& t, IntArrayRef sizes, IntArrayRef dims, bool keepdim);
/// PyTorch's evenly_distribute_backward: the gradient of a value picked out of `input` (max(),
/// median(), ...) shared evenly among the elements equal to it (NaN matching NaN).
Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& input, const Tensor& value);
/// PyTorch's value_selecting_reduction_backward: `grad` scattered to `indices` along `dim` of a
/// zero tensor of `sizes` (max/min with dim, sort, topk, kthvalue, median with dim).
Tensor value_selecting_backward(const Tensor& grad, int64_t dim, const Tensor& indices,
                                IntArrayRef sizes, bool keepdim);

}  // namespace ember
