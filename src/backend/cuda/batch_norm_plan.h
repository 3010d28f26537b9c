// The host half of the CUDA batch norm kernels, apart from the CUDA build so that every build
// compiles and tests it: the backend's batch_norm_stats, batch_norm and batch_norm_backward
// arguments become the passes of a kernels::BatchNormLaunch (batch_norm_launch.h), over a
// scratch of 2 C op math values the caller allocates on the device. No device is touched.
#pragma once

#include <array>

#include "backend/cuda/batch_norm_launch.h"
#include "ember/tensor.h"

namespace ember::cuda {

/// The most threads of a channel's block (block_threads picks fewer for small channels).
inline constexpr uint32_t kBatchNormThreads = 256;

/// batch_norm_stats: the stats pass of x (N, C, *) into float64 (C) mean and var.
kernels::BatchNormLaunch plan_batch_norm_stats_launch(const Tensor& x, const Tensor& mean,
                                                      const Tensor& var);

/// batch_norm: the params pass, then the affine pass.
std::array<kernels::BatchNormLaunch, 2> plan_batch_norm_launches(
    const Tensor& y, const Tensor& save_mean, const Tensor& save_invstd, const Tensor& x,
    const Tensor& weight, const Tensor& bias, const Tensor& mean, const Tensor& var, double eps,
    void* scratch);

/// batch_norm_backward: the grad_sums pass (needed when training or for grad_weight/grad_bias),
/// then the grad_input pass (when grad_input is defined).
std::array<kernels::BatchNormLaunch, 2> plan_batch_norm_backward_launches(
    const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias, const Tensor& x,
    const Tensor& grad_out, const Tensor& save_mean, const Tensor& save_invstd,
    const Tensor& weight, bool training, void* scratch);

}  // namespace ember::cuda
