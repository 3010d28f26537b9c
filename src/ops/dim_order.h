// The order in which a new tensor lays out its dims, as PyTorch decides it for outputs that follow
// their inputs' layout (TensorIterator's reorder_dimensions, infer_dense_strides).
#pragma once

#include <cstdint>
#include <utility>

#include "ember/int_array.h"

namespace ember {

/// The dims of an n-dim tensor sorted innermost first (perm[0] is the innermost): an insertion
/// sort starting from the row-major order, where should_swap(d0, d1) for dim d0 placed inside
/// dim d1 returns > 0 to swap them, < 0 to keep them and stop (a firm opinion), 0 to keep them
/// and compare further out. Both of PyTorch's layout rules are this sort with their own
/// comparison: TensorIterator's for elementwise outputs, infer_dense_strides for preserve_format.
template <class ShouldSwap>
DimVector dims_innermost_first(int64_t n, const ShouldSwap& should_swap) {
  DimVector perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[i] = n - 1 - i;
  for (int64_t i = 1; i < n; ++i) {
    for (int64_t d0 = i - 1, d1 = i; d0 >= 0; --d0) {
      const int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  return perm;
}

}  // namespace ember
