// What the host side (softmax.cpp) hands the CUDA softmax kernels (softmax.cu), forward and
// backward: contiguous operands viewed as (outer, dim, inner); one block per line of `dim`
// elements.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

/// The lines of a softmax along one dim: line l = (o, i) starts at o * dim * inner + i, stride
/// inner.
struct SoftmaxLines {
  int64_t outer, dim, inner;
  int64_t lines;             // outer * inner (0 for an empty dim: nothing to write)
  uint32_t blocks, threads;  // blocks stride over the lines
};

struct SoftmaxLaunch : SoftmaxLines {
  Type type;  // float32 or float64 (the front end computes the half types in float32)
  int32_t log;  // 1: log_softmax
  const char* x;
  char* y;
};

/// The gradient of softmax from its output y: dx = y * (grad - sum(grad * y)), or for
/// log_softmax grad - exp(y) * sum(grad), the sum along each line in float for the half types
/// (PyTorch's accscalar_t).
struct SoftmaxBackwardLaunch : SoftmaxLines {
  Type type;  // float32, float64, float16 or bfloat16: dx, grad and y alike
  int32_t log;
  const char* grad;
  const char* y;
  char* dx;
};

/// Queues the kernel on `stream` (a cudaStream_t); returns the launch's cudaError_t.
int launch_softmax(const SoftmaxLaunch& launch, void* stream);
int launch_softmax_backward(const SoftmaxBackwardLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
