// What the host side (optim.cpp) hands the CUDA fused optimizer updates (optim.cu): one plain
// struct, so nvcc compiles no ember header. Its scalars are backend::SgdStep's and AdamStep's
// (backend/optim_kernels.h), copied by the plan (optim_plan.cpp); every buffer is contiguous, of
// the parameter's dtype and numel.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

enum class OptimOp : int32_t { sgd, adam };

struct OptimLaunch {
  OptimOp op;
  Type type;  // float32 or float64
  int64_t numel;
  uint32_t blocks, threads;  // a grid-stride loop over the elements
  char* param;
  const char* grad;
  char* momentum_buffer;  // SGD; null without momentum
  char* exp_avg;          // Adam's moments; max_exp_avg_sq null without amsgrad
  char* exp_avg_sq;
  char* max_exp_avg_sq;
  // SGD (backend::SgdStep)
  double lr, weight_decay, momentum, dampening;
  bool nesterov, first;
  // Adam and AdamW (backend::AdamStep)
  double beta1, beta2, l2, decay, bc2_sqrt, eps, neg_step_size;
  bool decoupled;
  bool maximize;  // both
};

/// Queues the update on `stream` (a cudaStream_t); returns the launch's cudaError_t.
int launch_optim(const OptimLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
