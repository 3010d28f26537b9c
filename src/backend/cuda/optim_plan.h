// The host half of the CUDA fused optimizer updates, apart from the CUDA build so that every
// build compiles and tests it: an optimizer's step over param, grad and its state buffers becomes
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

kernels::OptimLaunch plan_adamax_launch(const Tensor& param, const Tensor& grad,
                                        const Tensor& exp_avg, const Tensor& exp_inf,
                                        const backend::AdamaxStep& s);

kernels::OptimLaunch plan_nadam_launch(const Tensor& param, const Tensor& grad,
                                       const Tensor& exp_avg, const Tensor& exp_avg_sq,
                                       const backend::NAdamStep& s);

kernels::OptimLaunch plan_radam_launch(const Tensor& param, const Tensor& grad,
                                       const Tensor& exp_avg, const Tensor& exp_avg_sq,
                                       const backend::RAdamStep& s);

/// grad_avg defined when centered, momentum_buffer when momentum > 0.
kernels::OptimLaunch plan_rmsprop_launch(const Tensor& param, const Tensor& grad,
                                         const Tensor& square_avg, const Tensor& grad_avg,
                                         const Tensor& momentum_buffer,
                                         const backend::RMSpropStep& s);

kernels::OptimLaunch plan_adagrad_launch(const Tensor& param, const Tensor& grad, const Tensor& sum,
                                         const backend::AdagradStep& s);

}  // namespace ember::cuda
