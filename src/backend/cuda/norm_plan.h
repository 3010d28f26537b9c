// The host half of the CUDA layer_norm and rms_norm kernels, apart from the CUDA build so that
// every build compiles and tests it: the backend's norm entries' tensors become a
// kernels::RowNormLaunch (forward) or the two passes of a RowNormBackwardLaunch. No device is
// touched.
#pragma once

#include <array>

#include "backend/cuda/norm_launch.h"
#include "ember/tensor.h"

namespace ember::cuda {

/// The most threads of a row-norm block (one block per row; block_threads picks fewer).
inline constexpr uint32_t kRowNormThreads = 256;

/// layer_norm (mean defined) or rms_norm (mean undefined, no bias) of x read as M rows of N, as
/// NormKernels::layer_norm / rms_norm take them: x and y contiguous in one floating dtype;
/// weight, bias (either undefined), mean and rstd contiguous in its op math dtype.
kernels::RowNormLaunch plan_row_norm_launch(const Tensor& y, const Tensor& mean, const Tensor& rstd,
                                            const Tensor& x, const Tensor& weight,
                                            const Tensor& bias, int64_t M, int64_t N, double eps);

/// group_norm of x (N, C, *) in G groups (NormKernels::group_norm's arguments): the row norm
/// over its N G contiguous groups, weight and bias (C) per channel.
kernels::RowNormLaunch plan_group_norm_launch(const Tensor& y, const Tensor& mean,
                                              const Tensor& rstd, const Tensor& x,
                                              const Tensor& weight, const Tensor& bias, int64_t G,
                                              double eps);

/// The two passes (rows: grad_input; columns: grad_weight and grad_bias) of
/// NormKernels::layer_norm_backward's arguments; an undefined output is not computed, and a pass
/// with nothing to compute is not to be launched (its outputs are null).
std::array<kernels::RowNormBackwardLaunch, 2> plan_row_norm_backward_launches(
    const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias, const Tensor& x,
    const Tensor& grad_out, const Tensor& mean, const Tensor& rstd, const Tensor& weight, int64_t M,
    int64_t N);

/// group_norm's backward (NormKernels::group_norm_backward's arguments): the row norm's passes
/// over its N G groups, the columns pass a thread per channel.
std::array<kernels::RowNormBackwardLaunch, 2> plan_group_norm_backward_launches(
    const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias, const Tensor& x,
    const Tensor& grad_out, const Tensor& mean, const Tensor& rstd, const Tensor& weight,
    int64_t G);

}  // namespace ember::cuda
