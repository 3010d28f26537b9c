// The host half of the CUDA rearranging kernels, apart from the CUDA build so that every build
// compiles and tests it: RearrangeKernels' flip, triangle, trace and searchsorted arguments
// become one launch each; one_hot, repeat_interleave and unique, whose result sizes depend on
// the values, become a Work: the launches up to a count read back once (the sync PyTorch's CUDA
// kernels make too), then the results and the launches that write them. No device is touched.
#pragma once

#include <array>
#include <cstdint>

#include "backend/cuda/rearrange_launch.h"
#include "backend/cuda/scan_launch.h"
#include "backend/cuda/sort_launch.h"
#include "backend/rearrange_kernels.h"
#include "ember/tensor.h"

namespace ember::cuda {

/// flip of self (any strides, not empty) into out (contiguous, self's shape) along dims.
kernels::FlipLaunch plan_flip_launch(const Tensor& out, const Tensor& self, IntArrayRef dims);

/// tril (lower) / triu of self into out: contiguous, self's shape and dtype, at least 2-D.
kernels::TriangleLaunch plan_triangle_launch(const Tensor& out, const Tensor& self, int64_t k,
                                             bool lower);

/// trace of the matrix self (any strides) into the 0-d out (int64 for integral self, else
/// self's dtype).
kernels::TraceLaunch plan_trace_launch(const Tensor& out, const Tensor& self);

/// searchsorted (RearrangeKernels::searchsorted's arguments).
kernels::SearchsortedLaunch plan_searchsorted_launch(const Tensor& out, const Tensor& boundaries,
                                                     const Tensor& values, const Tensor& sorter,
                                                     bool right);

/// {min, max, sum} of an IntStatsLaunch, read back to the host (waits for the launch).
std::array<int64_t, 3> read_int_stats(const Tensor& stats);

/// one_hot of self (contiguous int64, not empty): run `stats`, read_int_stats, then
/// one_hot_result and `write`.
struct OneHotWork {
  Tensor stats;  // 3 int64 on self's device
  kernels::IntStatsLaunch stats_launch;
  kernels::OneHotLaunch write;
};
OneHotWork plan_one_hot(const Tensor& self);
/// PyTorch's one_hot errors for values out of range; the zeroed int64 (..., classes) result on
/// self's device, `w.write` pointed at it.
Tensor one_hot_result(OneHotWork& w, const Tensor& self, const std::array<int64_t, 3>& stats,
                      int64_t num_classes);

/// repeat_interleave of repeats (1-D contiguous int64, not empty): run `stats_launch` and
/// `scan`, read_int_stats, then repeat_interleave_result and `write` (when total > 0).
struct RepeatWork {
  Tensor stats, ends;  // 3 and n int64 on repeats' device
  kernels::IntStatsLaunch stats_launch;
  kernels::ScanLaunch scan;  // ends = the inclusive scan of repeats
  kernels::RepeatLaunch write;
};
RepeatWork plan_repeat_interleave(const Tensor& repeats);
/// `[repeat_interleave] repeats can not be negative` for a negative entry; the (total) int64
/// result on repeats' device, `w.write` pointed at it.
Tensor repeat_interleave_result(RepeatWork& w, const Tensor& repeats,
                                const std::array<int64_t, 3>& stats);

/// unique over the elements of self (contiguous, 1 or more, a type the sort has: not bool,
/// uint8, int8 or int16), or along a dim (unique_rows: the rows of x (n, ...) contiguous, n >= 1,
/// not uint8, int8 or int16): run `sort` (elements) or `sort_rows` (rows), `mark` and `scan`,
/// read ids[n - 1] (the number of groups) back, then unique_result or unique_rows_result,
/// `write` and (for the counts) `count`.
struct UniqueWork {
  Tensor sorted, order, starts, ids;  // n each on self's device (sorted: elements only)
  Tensor firsts;                      // (groups), made by the result
  kernels::SortLaunch sort;           // elements: self, stably, NaN last
  kernels::UniqueLaunch sort_rows;    // rows: the lexicographic order of the rows
  kernels::UniqueLaunch mark;
  kernels::ScanLaunch scan;  // ids = the inclusive scan of starts
  kernels::UniqueLaunch write, count;
};
UniqueWork plan_unique(const Tensor& self);
UniqueWork plan_unique_rows(const Tensor& x);
/// The results on self's device (inverse and counts only when asked), `w.write` and `w.count`
/// pointed at them.
backend::UniqueElements unique_result(UniqueWork& w, const Tensor& self, int64_t groups,
                                      bool return_inverse, bool return_counts);
backend::UniqueRows unique_rows_result(UniqueWork& w, const Tensor& x, int64_t groups);

}  // namespace ember::cuda
