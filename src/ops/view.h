// The one place a view is made: a new descriptor over the base's storage. Autograd's view
// tracking hooks in here.
#pragma once

#include <functional>

#include "ember/tensor.h"

namespace ember {

Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset);

/// squeeze(d) recorded as PyTorch's in-place squeeze_(d) (SqueezeBackward3): what composite ops
/// such as matmul's 1-D @ 2-D apply to their own result, so the node has PyTorch's name.
Tensor squeeze_inplace_named(const Tensor& t, int64_t d);

/// Resolves one -1 in `shape` against numel; throws "[op] shape [..] is invalid for input of
/// size n" when the product does not match.
DimVector infer_size(IntArrayRef shape, int64_t numel, const char* op);

/// Strides that let a tensor of (sizes, strides) be viewed as new_sizes without a copy, if any
/// (PyTorch's viewability rule); empty optional when a copy is needed.
std::optional<DimVector> view_strides(IntArrayRef sizes, IntArrayRef strides,
                                      IntArrayRef new_sizes);

/// The backward of a view op (select, slice, diagonal, unfold, ...): zeros of `sizes` with `g`
/// written into view_fn of them (added, when the view repeats elements: `overlapping`).
/// Recorded as op `node` (e.g. "SliceBackwardBackward0"), whose backward is view_fn again.
Tensor view_scatter(const char* node, const Tensor& g, IntArrayRef sizes,
                    std::function<Tensor(const Tensor&)> view_fn, bool overlapping = false);

}  // namespace ember
