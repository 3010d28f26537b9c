// The softmax family's kernels (src/ops/softmax.cpp): what a backend implements so that softmax
// and log_softmax run on its device, and optionally their fused backwards.
#pragma once

#include <cstdint>

#include "ember/tensor.h"

namespace ember::backend {

/// y = softmax (or log_softmax) of x along `dim` (wrapped; 0 for a 0-d x), shifted by each line's
/// max so exp never overflows; an all -inf line gives NaN, as in PyTorch. x is contiguous and
/// float32 or float64 (the front end computes float16/bfloat16 in float32); y is new,
/// contiguous, of x's shape and dtype, on its device.
using SoftmaxFn = void (*)(const char* op, const Tensor& y, const Tensor& x, int64_t dim);

/// dx = the gradient of softmax (log_softmax) along `dim` from grad and the forward's output y:
/// y * (grad - sum(grad * y)), or grad - exp(y) * sum(grad). grad and y contiguous, of one shape
/// and floating dtype (float16/bfloat16 summed in float32); dx new and alike.
using SoftmaxBackwardFn = void (*)(const char* op, const Tensor& dx, const Tensor& grad,
                                   const Tensor& y, int64_t dim);

/// One backend's softmax kernels; a null forward is `[op] no kernel for <device>`, a null
/// backward runs the formula in ops instead (the CPU's).
struct SoftmaxKernels {
  SoftmaxFn softmax = nullptr;
  SoftmaxFn log_softmax = nullptr;
  SoftmaxBackwardFn softmax_backward = nullptr;
  SoftmaxBackwardFn log_softmax_backward = nullptr;
};

}  // namespace ember::backend
