// The gather family's kernels (src/ops: gather.cpp, index_select.cpp, take.cpp, masked.cpp):
// element moves addressed by index tensors. The front end checks dtypes and shapes, wraps the
// dims, makes the operands at least 1-D (PyTorch's ensure_nonempty_dim) and records autograd;
// a kernel checks each index entry against its dim (the front end never reads element memory)
// and raises `[op] index i is out of bounds ...` as PyTorch words it.
#pragma once

#include <cstdint>

#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember::backend {

/// scatter_reduce's reductions (PyTorch's names: "sum", "prod", "mean", "amax", "amin").
enum class ScatterReduce : uint8_t { Sum, Prod, Mean, Amax, Amin };

struct GatherKernels {
  // ── along a dim with an index of the same rank (gather.cpp) ──
  /// out[..., j, ...] = self[..., index[..., j, ...], ...] along dim; out has index's shape.
  void (*gather)(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) = nullptr;
  /// self[..., index[j], ...] = src[..., j, ...] (src may be an expanded scalar).
  void (*scatter)(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) = nullptr;
  /// self[..., index[j], ...] += src[..., j, ...]; repeated indices add up exactly.
  void (*scatter_add)(const Tensor& self, int64_t dim, const Tensor& index,
                      const Tensor& src) = nullptr;
  /// scatter with a reduction; without include_self the written positions start from the
  /// reduction's identity. Numeric dtypes.
  void (*scatter_reduce)(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                         ScatterReduce reduce, bool include_self) = nullptr;

  // ── along a dim with a 1-D index (index_select.cpp) ──
  /// Checks a contiguous int64 index against [-size, size) when `wrap` (negative entries wrap,
  /// in place: the front end hands a tensor it owns), else [0, size).
  void (*check_index)(const char* op, const Tensor& index, int64_t dim, int64_t size,
                      bool wrap) = nullptr;
  /// out = self's slices index[j] along dim; self contiguous, index checked.
  void (*index_select)(const Tensor& out, const Tensor& self, int64_t dim,
                       const Tensor& index) = nullptr;
  /// self (contiguous) slice index[j] += alpha * source (contiguous) slice j.
  void (*index_add)(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    Scalar alpha) = nullptr;
  /// self (contiguous) slice index[j] = source (contiguous) slice j.
  void (*index_copy)(const Tensor& self, int64_t dim, const Tensor& index,
                     const Tensor& source) = nullptr;
  /// self (contiguous) slices index[j] = value (of self's dtype).
  void (*index_fill)(const Tensor& self, int64_t dim, const Tensor& index, Scalar value) = nullptr;

  // ── flat (take.cpp) ──
  /// out[j] = self.flatten()[index[j]], negative entries wrapped; self/index contiguous.
  void (*take)(const Tensor& out, const Tensor& self, const Tensor& index) = nullptr;

  // ── masks (masked.cpp) ──
  /// The elements of self (contiguous) where mask (bool, contiguous, same shape), in order.
  Tensor (*masked_select)(const Tensor& self, const Tensor& mask) = nullptr;
  /// self (contiguous) where mask = source's first elements in order (source contiguous);
  /// raises when source has fewer elements than mask has ones.
  void (*masked_scatter)(const Tensor& self, const Tensor& mask, const Tensor& source) = nullptr;
  /// The (n, dim) int64 coordinates of t's (contiguous) nonzero elements in row-major order.
  Tensor (*nonzero)(const Tensor& t) = nullptr;
};

}  // namespace ember::backend
