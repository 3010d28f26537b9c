// The advanced-indexing kernels (src/ops/index.cpp: t.index({...}) and index_put_ with tensor
// indices). The front end applies the basic entries (views), turns masks into nonzero()
// columns, broadcasts the indices, moves separated indexed dims to the front (Note [Advanced
// index placement]) and records autograd; the kernel reads the index entries: it wraps negative
// ones and raises `[index] index i is out of bounds for dimension k with size n`.
#pragma once

#include <cstdint>
#include <span>

#include "ember/tensor.h"

namespace ember::backend {

/// src's dims [first, first + indices.size()) indexed by int64 tensors, contiguous, all of the
/// broadcast index shape S. The result's shape is src.sizes()[:first] + S + the dims after.
struct AdvancedIndex {
  const Tensor& src;
  int64_t first;
  std::span<const Tensor> indices;
};

struct IndexKernels {
  /// out (contiguous, the result's shape) = src at the indices.
  void (*index)(const Tensor& out, const AdvancedIndex& at) = nullptr;
  /// src at the indices = value (or += with accumulate: repeated indices add up); value is in
  /// src's dtype, expanded to the result's shape, and does not alias src.
  void (*index_put)(const AdvancedIndex& at, const Tensor& value, bool accumulate) = nullptr;
};

}  // namespace ember::backend
