// What the host side (softmax.cpp) hands the CUDA softmax kernels (softmax.cu): x and y
// contiguous, viewed as (outer, dim, inner); one block per line of `dim` elements.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

struct SoftmaxLaunch {
  Type type;  // float32 or float64 (the front end computes the half types in float32)
  int32_t log;  // 1: log_softmax
  int64_t outer, dim, inner;  // line l = (o, i) starts at o * dim * inner + i, stride inner
  int64_t lines;  // outer * inner
  const char* x;
  char* y;
  uint32_t blocks, threads;  // blocks stride over the lines
};

/// Queues the kernel on `stream` (a cudaStream_t); returns the launch's cudaError_t.
int launch_softmax(const SoftmaxLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
