// The gradients of the fused losses of src/ops/loss.cpp, as plain functions (autograd wiring
// comes later): each returns d(loss)/d(input) given grad_out (shaped like the loss).
#pragma once

#include "ember/nn/functional/loss.h"
#include "ember/tensor.h"

namespace ember::nn::functional {

/// softmax(input) - smoothed one-hot(target), weighted and scaled by the reduction, for class
/// indices or class probabilities; zero at ignored positions.
Tensor cross_entropy_backward(const Tensor& grad_out, const Tensor& input, const Tensor& target,
                              const CrossEntropyFuncOptions& options = {});
/// -w[t] at the target class of each position, scaled by the reduction; zero elsewhere.
Tensor nll_loss_backward(const Tensor& grad_out, const Tensor& input, const Tensor& target,
                         const NLLLossFuncOptions& options = {});

}  // namespace ember::nn::functional
