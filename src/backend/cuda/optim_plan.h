// The host half of the CUDA fused optimizer updates, apart from the CUDA build so that every
// build compiles and tests it: an SGD or Adam step over param, grad and its state buffers becomes
// a kernels::OptimLaunch (their data, the step's scalars, the grid). No device is touched.
#pragma once

#include "backend/cuda/optim_launch.h"
#include "backend/optim_kernels.h"

namespace ember::cuda {

/// The launch of SGD's update; momentum_buffer undefined without momentum.
kernels::OptimLaunch plan_sgd_launch(const Tensor& param, const Tensor& grad,
                                     const Tensor& momentum_buffer, const backend::SgdStep& s);

/// The launch of Adam's or AdamW's update; max_exp_avg_sq undefined without amsgrad.
kernels::OptimLaunch plan_adam_launch(const Tensor& param, const Tensor& grad,
                                      const Tensor& exp_avg, const Tensor& exp_avg_sq,
                                      const Tensor& max_exp_avg_sq, const backend::AdamStep& s);

}  // namespace ember::cuda
