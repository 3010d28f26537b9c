// What the host side (sort.cpp) hands the CUDA sort and topk kernels (sort.cu): self (contiguous)
// read as (outer, n, inner), a line of n elements `inner` apart per (outer, inner). A plain
// struct, so nvcc compiles no ember header.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

/// One block per line sorts it, as (value, index) pairs, into `values` and `indices` (the
/// outputs of sort, scratch of self's shape for topk); topk then copies each line's first k
/// into `top_values` and `top_indices` ((outer, k, inner)).
struct SortLaunch {
  Type type;  // float32, float64, float16, bfloat16, int32 or int64
  int32_t descending;
  int64_t outer, n, inner;
  int64_t lines;  // outer * inner
  int64_t k;      // topk's k; 0 for sort
  const char* self;
  char* values;
  int64_t* indices;
  char* top_values;          // null for sort
  int64_t* top_indices;      // null for sort
  uint32_t blocks, threads;  // blocks stride over the lines
};

/// Queues the kernel on `stream` (a cudaStream_t); returns the launch's cudaError_t.
int launch_sort(const SortLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
