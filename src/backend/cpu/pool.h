// CPU pooling kernels on normalised operands: contiguous planes (P, H, W), P = N * C, of one
// floating dtype (float16/bfloat16 accumulate in float), outputs allocated by the caller.
// Window arithmetic follows PyTorch's CPU kernels exactly (which element wins a max, NaN
// handling, the divisor of an average), so indices and values match bit for bit.
#pragma once

#include <cstdint>

#include "backend/cpu/level.h"
#include "backend/pool_kernels.h"
#include "ember/tensor.h"

namespace EMBER_CPU_NS {

using backend::Pool2dParams;

/// out (P, Ho, Wo) = window max of input (P, H, W); indices (P, Ho, Wo) int64, flat in H*W, may
/// be undefined. A NaN in a window wins (the last one), as in PyTorch.
void max_pool2d(const Tensor& input, const Tensor& out, const Tensor& indices,
                const Pool2dParams& p);
/// divisor > 0 overrides the window size (divisor_override).
void avg_pool2d(const Tensor& input, const Tensor& out, const Pool2dParams& p,
                bool count_include_pad, int64_t divisor);
/// Adaptive windows [floor(i*H/Ho), ceil((i+1)*H/Ho)); indices may be undefined for max.
void adaptive_avg_pool2d(const Tensor& input, const Tensor& out);
void adaptive_max_pool2d(const Tensor& input, const Tensor& out, const Tensor& indices);

/// grad_input (P, H, W) = 0, then grad (P, Ho, Wo) added at indices (P, Ho, Wo).
void max_pool_backward(const Tensor& grad, const Tensor& indices, const Tensor& grad_input);
void avg_pool2d_backward(const Tensor& grad, const Tensor& grad_input, const Pool2dParams& p,
                         bool count_include_pad, int64_t divisor);
void adaptive_avg_pool2d_backward(const Tensor& grad, const Tensor& grad_input);

}  // namespace EMBER_CPU_NS
