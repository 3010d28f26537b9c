// The sort family's kernels (src/ops/sort.cpp): sort, topk, kthvalue, median/nanmedian and mode
// along a dim. The front end wraps the dim, checks k, makes self contiguous, allocates the
// (contiguous) values and int64 indices on self's device and records autograd. Where PyTorch's
// result depends on its algorithm (the index reported among equal values) a kernel runs the same
// one (Note [Matching PyTorch's ties] in backend/cpu/sort.cpp).
#pragma once

#include <cstdint>

#include "ember/tensor.h"

namespace ember::backend {

/// In every entry self is contiguous (and, but for median_all, non-empty), dim is wrapped (0 for
/// a 0-d self); values and indices have the result's shape along dim (keepdim or not: the same
/// memory order).
struct SortKernels {
  /// Every line along dim sorted (NaN largest); stable keeps equal values in input order.
  void (*sort)(const Tensor& values, const Tensor& indices, const Tensor& self, int64_t dim,
               bool descending, bool stable) = nullptr;
  /// The k largest (or smallest) of each line, in order when sorted. Numeric dtypes.
  void (*topk)(const Tensor& values, const Tensor& indices, const Tensor& self, int64_t k,
               int64_t dim, bool largest, bool sorted) = nullptr;
  /// The k-th smallest (1-based) of each line. Numeric dtypes.
  void (*kthvalue)(const Tensor& values, const Tensor& indices, const Tensor& self, int64_t k,
                   int64_t dim) = nullptr;
  /// The lower median of each line (of length > 0); without ignore_nan a line's first NaN is
  /// its median, with it NaNs are left out. Numeric dtypes.
  void (*median)(const char* op, const Tensor& values, const Tensor& indices, const Tensor& self,
                 int64_t dim, bool ignore_nan) = nullptr;
  /// out (0-d) = the lower median of all of self (NaN when empty: an error for integers).
  void (*median_all)(const char* op, const Tensor& out, const Tensor& self,
                     bool ignore_nan) = nullptr;
  /// The most frequent value of each line (of length > 0), the smallest among equally frequent.
  void (*mode)(const Tensor& values, const Tensor& indices, const Tensor& self,
               int64_t dim) = nullptr;
};

}  // namespace ember::backend
