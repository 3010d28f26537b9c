// Copy and fill helpers for ops that write into a tensor they have just made (clone, contiguous,
// to, cat, full, eye, *_like): the same work as copy_/fill_ without the version bump, since a new
// tensor starts at version 0 as in PyTorch; and the layout rule of torch.preserve_format.
#pragma once

#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember {

/// copy_(dst, src) without bumping dst's version counter.
void copy_into(const Tensor& dst, const Tensor& src);
/// fill_(dst, value) without bumping dst's version counter.
void fill_into(const Tensor& dst, Scalar value);
/// Throws "[op] value v cannot be converted to type T without overflow" as PyTorch's
/// checked_convert does: out-of-range numbers, and NaN for integer dtypes. Infinities go into
/// floating dtypes, and negative integers wrap into uint8 when their magnitude fits.
void check_scalar_fits(Scalar value, Dtype dtype, const char* op);

/// Strides for a new tensor laid out like t (torch.preserve_format): t's own strides when it is
/// non-overlapping and dense, else dense strides that keep t's dim order.
DimVector preserve_format_strides(const Tensor& t);

}  // namespace ember
