// What the host side (optim.cpp) hands the CUDA fused optimizer updates (optim.cu): one plain
// struct, so nvcc compiles no ember header. Its scalars are the backend's *Step structs'
// (backend/optim_kernels.h), copied by the plan (optim_plan.cpp); every buffer is contiguous, of
// the parameter's dtype and numel.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

enum class OptimOp : int32_t { sgd, adam, adamax, nadam, radam, rmsprop, adagrad };

struct OptimLaunch {
  OptimOp op;
  Type type;  // float32 or float64
  int64_t numel;
  uint32_t blocks, threads;  // a grid-stride loop over the elements
  char* param;
  const char* grad;
  char* momentum_buffer;  // SGD, RMSprop; null without momentum
  char* exp_avg;          // the first moment: Adam, Adamax, NAdam, RAdam
  char* exp_avg_sq;       // the second moment: Adam, NAdam, RAdam; Adamax's exp_inf
  char* max_exp_avg_sq;   // Adam with amsgrad, else null
  char* square_avg;       // RMSprop
  char* grad_avg;         // RMSprop when centered, else null
  char* sum;              // Adagrad
  // SGD (backend::SgdStep)
  double lr, weight_decay, momentum, dampening;
  bool nesterov, first;
  // The Adam family (backend::AdamStep, AdamaxStep, NAdamStep, RAdamStep)
  double beta1, beta2, l2, decay, bc2_sqrt, eps, neg_step_size;
  bool decoupled;
  double bias_correction1, bias_correction2;  // RAdam's first, NAdam's second
  double grad_coef, avg_coef;                 // NAdam's two addcdiv_ values
  double rect;                                // RAdam, used when rectify
  bool rectify;
  double neg_clr;  // Adamax, Adagrad: the step's signed learning rate
  double alpha;    // RMSprop
  bool maximize;   // SGD, Adam, Adamax, RMSprop, Adagrad
};

/// Queues the update on `stream` (a cudaStream_t); returns the launch's cudaError_t.
int launch_optim(const OptimLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
