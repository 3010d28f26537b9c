// The rearranging family's kernels (src/ops/rearrange.cpp): flip, tril/triu, trace,
// repeat_interleave, one_hot, searchsorted/bucketize and unique. The front end checks shapes and
// dtypes, wraps dims, makes operands contiguous where an entry says so and records autograd.
// Entries whose result size depends on the values (repeat_interleave, one_hot, unique) return
// their results and raise PyTorch's errors about the values themselves.
#pragma once

#include <cstdint>

#include "ember/tensor.h"

namespace ember::backend {

/// unique over the elements: the sorted distinct values, with the inverse indices and counts
/// when asked (undefined otherwise). The front end hands them out as ember::UniqueResult.
struct UniqueElements {
  Tensor values;   // (groups): self's dtype
  Tensor inverse;  // self's shape, int64: the group of each element
  Tensor counts;   // (groups), int64: the elements in each group
};

/// unique along a dim: the rows of x (n, row) grouped in lexicographic order. All int64.
struct UniqueRows {
  Tensor first;    // (groups): the index of each group's first row in x
  Tensor inverse;  // (n): the group of each row
  Tensor counts;   // (groups): the rows in each group
};

struct RearrangeKernels {
  /// out (contiguous, self's shape) = self (any strides, not empty) reversed along `dims`
  /// (wrapped, distinct).
  void (*flip)(const Tensor& out, const Tensor& self, IntArrayRef dims) = nullptr;
  /// out = self over the last two dims with the elements outside a triangle zeroed: kept are
  /// j - i <= k (lower) or j - i >= k (upper). Both contiguous, not empty.
  void (*triangle)(const Tensor& out, const Tensor& self, int64_t k, bool lower) = nullptr;
  /// out (0-d: int64 for integral self, else self's dtype) = the sum of the main diagonal of
  /// self (a matrix, any strides), accumulated as PyTorch's CPU kernel does.
  void (*trace)(const Tensor& out, const Tensor& self) = nullptr;
  /// int64 (sum(repeats)): i repeated repeats[i] times; repeats 1-D contiguous int64, a
  /// negative entry is `[repeat_interleave] repeats can not be negative`.
  Tensor (*repeat_interleave)(const Tensor& repeats) = nullptr;
  /// int64 (..., num_classes) one-hot rows of self (contiguous int64, not empty);
  /// num_classes == -1 takes max + 1. Values out of range raise PyTorch's one_hot errors.
  Tensor (*one_hot)(const Tensor& self, int64_t num_classes) = nullptr;
  /// out (int64, values' shape) = the insertion position of each value in its row of
  /// boundaries (the last dim; a 1-D boundaries serves every value), read through sorter
  /// (int64, boundaries' shape) when defined. boundaries and values contiguous, one dtype.
  void (*searchsorted)(const Tensor& out, const Tensor& boundaries, const Tensor& values,
                       const Tensor& sorter, bool right) = nullptr;
  /// The sorted distinct elements of self (contiguous; every NaN distinct), with the inverse
  /// indices (self's shape) and counts when asked.
  UniqueElements (*unique)(const Tensor& self, bool return_inverse, bool return_counts) = nullptr;
  /// The distinct rows of x (n, ...), contiguous.
  UniqueRows (*unique_rows)(const Tensor& x) = nullptr;
};

}  // namespace ember::backend
