// The pooling family's kernels (src/ops/pool.cpp): the front end checks the arguments with
// PyTorch's output-size rules and hands contiguous planes (P, H, W), P = N * C, of one floating
// dtype, with the outputs allocated on their device (1-D pools are height-1 2-D ones).
#pragma once

#include <cstdint>

#include "ember/tensor.h"

namespace ember::backend {

/// A 2-D pooling window, filled by the front end.
struct Pool2dParams {
  int64_t kernel[2] = {1, 1};  // (H, W)
  int64_t stride[2] = {1, 1};
  int64_t padding[2] = {0, 0};
  int64_t dilation[2] = {1, 1};
};

struct PoolKernels {
  /// out (P, Ho, Wo) = window max of input (P, H, W); indices (P, Ho, Wo) int64, flat in H*W,
  /// may be undefined. A NaN in a window wins, as in PyTorch.
  void (*max_pool2d)(const Tensor& input, const Tensor& out, const Tensor& indices,
                     const Pool2dParams& p) = nullptr;
  /// divisor > 0 overrides the window size (divisor_override).
  void (*avg_pool2d)(const Tensor& input, const Tensor& out, const Pool2dParams& p,
                     bool count_include_pad, int64_t divisor) = nullptr;
  /// Adaptive windows [floor(i*H/Ho), ceil((i+1)*H/Ho)); indices may be undefined.
  void (*adaptive_max_pool2d)(const Tensor& input, const Tensor& out,
                              const Tensor& indices) = nullptr;
  void (*adaptive_avg_pool2d)(const Tensor& input, const Tensor& out) = nullptr;
  /// grad_input (P, H, W) = 0, then grad (P, Ho, Wo) added at indices (P, Ho, Wo): the backward
  /// of both max pools.
  void (*max_pool_backward)(const Tensor& grad, const Tensor& indices,
                            const Tensor& grad_input) = nullptr;
  void (*avg_pool2d_backward)(const Tensor& grad, const Tensor& grad_input, const Pool2dParams& p,
                              bool count_include_pad, int64_t divisor) = nullptr;
  void (*adaptive_avg_pool2d_backward)(const Tensor& grad, const Tensor& grad_input) = nullptr;
};

}  // namespace ember::backend
