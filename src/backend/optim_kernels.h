// The optimizers' fused updates (src/optim: sgd.cpp, adam.cpp, rmsprop.cpp). The front end
// resolves the group's options, creates and checks the state buffers (contiguous, the
// parameter's dtype and shape, on its device), advances the step counters and computes each
// step's scalars in double exactly as PyTorch's _single_tensor_* functions do; a kernel makes one
// pass over param, grad and the buffers, rounding each scalar to the parameter's dtype once.
// Optional buffers are undefined tensors when absent.
#pragma once

#include "ember/tensor.h"

namespace ember::backend {

struct SgdStep {
  double lr, weight_decay, momentum, dampening;
  bool nesterov, maximize;
  bool first;  // the momentum buffer was just created: it takes the gradient as is
};

struct AdamStep {
  double beta1, beta2;
  double l2;             // Adam: grad += l2 * p (0 for AdamW)
  double decay;          // AdamW: p *= decay (= 1 - lr * weight_decay) before the moments
  double bc2_sqrt, eps;  // denom = sqrt(v) / bc2_sqrt + eps
  double neg_step_size;  // -lr / (1 - beta1^step)
  bool maximize, decoupled;
};

struct AdamaxStep {
  double beta1, beta2, l2, eps;
  double neg_clr;  // -lr / (1 - beta1^step)
  bool maximize;
};

struct NAdamStep {
  double beta1, beta2, l2, eps, bias_correction2;
  double grad_coef, avg_coef;  // the two addcdiv_ values, from the momentum cache
};

struct RAdamStep {
  double beta1, beta2, l2, eps, bias_correction1, lr;
  bool rectify;           // the variance is tractable (rho_t > 5)
  double bc2_sqrt, rect;  // used when rectify
};

struct RMSpropStep {
  double lr, alpha, eps, l2, momentum;
  bool maximize;
};

struct AdagradStep {
  double neg_clr;  // -lr / (1 + (step - 1) * lr_decay)
  double l2, eps;
  bool maximize;
};

struct OptimKernels {
  void (*sgd)(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
              const SgdStep& s) = nullptr;
  /// Adam and AdamW; max_exp_avg_sq defined with amsgrad.
  void (*adam)(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
               const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, const AdamStep& s) = nullptr;
  void (*adamax)(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                 const Tensor& exp_inf, const AdamaxStep& s) = nullptr;
  void (*nadam)(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                const Tensor& exp_avg_sq, const NAdamStep& s) = nullptr;
  void (*radam)(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                const Tensor& exp_avg_sq, const RAdamStep& s) = nullptr;
  /// grad_avg defined when centered, momentum_buffer when momentum > 0.
  void (*rmsprop)(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                  const Tensor& grad_avg, const Tensor& momentum_buffer,
                  const RMSpropStep& s) = nullptr;
  void (*adagrad)(const Tensor& param, const Tensor& grad, const Tensor& sum,
                  const AdagradStep& s) = nullptr;
};

}  // namespace ember::backend
