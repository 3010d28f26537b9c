// The class-index losses' kernels (src/ops/loss.cpp: cross_entropy and nll_loss with integer
// targets), fused over log-softmax (Note [Fused cross entropy]). The front end checks the shapes
// and dtypes, reads the input as (N, C, S) in the compute dtype (float32, or float64) and records
// autograd; a kernel checks each target (the front end never reads element memory) and raises
// `[op] Target t is out of bounds.` for the first bad one, as PyTorch's loop does.
#pragma once

#include <cstdint>

#include "ember/tensor.h"

namespace ember::backend {

enum class LossReduction : uint8_t { None, Mean, Sum };

/// One cross_entropy / nll_loss call over classes.
struct ClassLossCall {
  const char* op;
  const Tensor& x;         // (N, C, S) contiguous, compute dtype: logits or log-probabilities
  const Tensor& target;    // (N * S) int64, contiguous, not checked yet
  const Tensor& weight;    // (C) contiguous, compute dtype, or undefined (all 1)
  int64_t ignore_index;
  double label_smoothing;  // 0 for nll_loss
  bool logits;             // cross_entropy: log-softmax x first; nll_loss: x is log-probabilities
  LossReduction reduction;  // "mean" divides by the total weight of the non-ignored targets
};

struct LossKernels {
  /// out = the loss: target's shape for None, else 0-d; compute dtype.
  void (*class_loss)(const ClassLossCall& c, const Tensor& out) = nullptr;
  /// grad_input (N, C, S), compute dtype, from grad: (N * S) contiguous in the compute dtype for
  /// None, else the 0-d grad_out as given.
  void (*class_loss_backward)(const ClassLossCall& c, const Tensor& grad_input,
                              const Tensor& grad) = nullptr;
};

}  // namespace ember::backend
