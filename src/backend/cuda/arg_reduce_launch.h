// What the host side (arg_reduce.cpp) hands the CUDA max/min along a dim with their indices
// (arg_reduce.cu): the rows of a contiguous (M, D) input, one block per row. A plain struct, so
// nvcc compiles no ember header.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

/// values[m], indices[m] = the extremum of row m and the position of its first occurrence, a NaN
/// beating every number (the CPU kernel's and PyTorch's rule). Two block reductions per row: the
/// extremum (NaN winning), then the smallest position holding it; the value stored is the
/// element at that position, so a zero's sign is the first zero's, as the CPU's.
struct ArgReduceLaunch {
  int32_t is_max;  // 1: max, 0: min
  Type type;       // a floating storage type
  int64_t rows, cols;
  const char* in;
  char* values;
  int64_t* indices;
  uint32_t blocks, threads;  // blocks loop over the rows; threads share a row
};

/// Queues the kernel on `stream` (a cudaStream_t); returns the launch's cudaError_t.
int launch_arg_reduce(const ArgReduceLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
