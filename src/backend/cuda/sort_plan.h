// The host half of the CUDA sort kernel (sort, topk and the selections), apart from the CUDA build so that every build
// compiles and tests it: the backend's sort entries' tensors become a kernels::SortLaunch over
// the (outer, n, inner) view of self. No device is touched.
#pragma once

#include "backend/cuda/sort_launch.h"
#include "ember/tensor.h"

namespace ember::cuda {

/// The most threads of a sort block (one block per line, a thread per comparator of a stage).
inline constexpr uint32_t kSortThreads = 1024;

/// sort of self (contiguous) along dim (wrapped; 0 for a 0-d self) into values and indices of
/// its shape: `[sort] the cuda backend has no <dtype> kernel yet` for int8/int16/uint8/bool.
kernels::SortLaunch plan_sort_launch(const Tensor& values, const Tensor& indices,
                                     const Tensor& self, int64_t dim, bool descending);

/// topk: self's lines sorted into `sorted_values` and `sorted_indices` (scratch of self's shape,
/// in its dtype and int64), their first k copied into values and indices (k along dim).
kernels::SortLaunch plan_topk_launch(const Tensor& values, const Tensor& indices,
                                     const Tensor& self, int64_t k, int64_t dim, bool largest,
                                     const Tensor& sorted_values, const Tensor& sorted_indices);

/// kthvalue, median, nanmedian or mode (pick; kth for kthvalue) of self's lines along dim, or,
/// with dim = -1, of all its elements (self read as one line; indices undefined): self sorted
/// into `sorted_values` and `sorted_indices` (scratch of self's shape, in its dtype and int64),
/// one value and index per line into values and indices.
kernels::SortLaunch plan_select_launch(const char* op, kernels::Pick pick, const Tensor& values,
                                       const Tensor& indices, const Tensor& self, int64_t dim,
                                       int64_t kth, const Tensor& sorted_values,
                                       const Tensor& sorted_indices);

}  // namespace ember::cuda
