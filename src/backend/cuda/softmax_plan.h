// The host half of the CUDA softmax kernels, apart from the CUDA build so that every build
// compiles and tests it: the (outer, dim, inner) view of a softmax call, forward or backward,
// and its grid.
#pragma once

#include "backend/cuda/softmax_launch.h"
#include "ember/tensor.h"

namespace ember::cuda {

/// The most threads of a softmax block (one block per line; block_threads picks fewer).
inline constexpr uint32_t kSoftmaxThreads = 256;

/// The launch of softmax (log: log_softmax) of x (contiguous, float32/float64) along `dim`
/// (wrapped; 0 for a 0-d x) into y: `[op] the cuda backend has no <dtype> kernel yet` otherwise.
kernels::SoftmaxLaunch plan_softmax_launch(const char* op, const Tensor& y, const Tensor& x,
                                           int64_t dim, bool log);

/// The launch of softmax's (log: log_softmax's) backward into dx from grad and the forward's
/// output y along `dim` (wrapped; 0 for 0-d): dx, grad and y contiguous, one shape and floating
/// dtype (float16/bfloat16 summed in float32), else `[op] ...`.
kernels::SoftmaxBackwardLaunch plan_softmax_backward_launch(const char* op, const Tensor& dx,
                                                            const Tensor& grad, const Tensor& y,
                                                            int64_t dim, bool log);

}  // namespace ember::cuda
