// What the host side (scan.cpp) hands the CUDA scan kernels (scan.cu): cumsum and cumprod of x
// (contiguous) along a dim, read as (outer, n, inner) lines of n elements `inner` apart. A plain
// struct, so nvcc compiles no ember header.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

/// y = the inclusive scan of each line, a thread per line in sequence: the floating types in a
/// double accumulator rounded once per output (through float for float16/bfloat16), the integers
/// in their own type, as the CPU's kernel (backend/scan_kernels.h), so the results are its bits.
/// Lines of many thousands would want a block scan (PyTorch's), which sums in another order.
struct ScanLaunch {
  Type type;     // float32, float64, float16, bfloat16, int32 or int64
  int32_t prod;  // 1: cumprod
  int64_t n, inner;
  int64_t lines;  // outer * inner
  const char* x;
  char* y;
  uint32_t blocks, threads;  // a grid-stride loop over the lines
};

/// Queues the kernel on `stream` (a cudaStream_t); returns the launch's cudaError_t.
int launch_scan(const ScanLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
