// What the host side (sort.cpp) hands the CUDA sort kernel (sort.cu) for sort, topk and the
// selections (kthvalue, median, nanmedian, mode, their all-elements form): self (contiguous)
// read as (outer, n, inner), a line of n elements `inner` apart per (outer, inner). A plain
// struct, so nvcc compiles no ember header.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

/// What a launch keeps of each sorted line.
enum class Pick : int32_t {
  all,        // sort: the sorted line itself, in values and indices
  first_k,    // topk: the first k, copied into top_values/top_indices ((outer, k, inner))
  kth,        // kthvalue: the kth-smallest (kth 1-based)
  median,     // the lower median; a line's first NaN when it has one
  nanmedian,  // the lower median of the line's non-NaN values (its first NaN when all are)
  mode,       // the value of the longest run of equal values (the first, smallest, among equal
              // runs), reported at the run's end: its largest index
};

/// One block per line sorts it, as (value, index) pairs, into `values` and `indices` (the
/// outputs of sort, scratch of self's shape otherwise); then keeps what `pick` says. The
/// selections write one value (and index, unless top_indices is null) per line into
/// top_values/top_indices ((outer, 1, inner): k = 1).
struct SortLaunch {
  Type type;  // float32, float64, float16, bfloat16, int32 or int64
  int32_t descending;
  Pick pick;
  int64_t outer, n, inner;
  int64_t lines;  // outer * inner
  int64_t k;      // the values kept per line: topk's k, 1 for a selection, 0 for sort
  int64_t kth;    // kthvalue's k
  const char* self;
  char* values;
  int64_t* indices;
  char* top_values;          // null for sort
  int64_t* top_indices;      // null for sort and for the median of all elements
  uint32_t blocks, threads;  // blocks stride over the lines
};

/// Queues the kernel on `stream` (a cudaStream_t); returns the launch's cudaError_t.
int launch_sort(const SortLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
