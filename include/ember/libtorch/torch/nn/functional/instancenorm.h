// F::instance_norm with LibTorch's options:
//   F::instance_norm(x, F::InstanceNormFuncOptions().weight(w).bias(b))
#pragma once

#include "ember/nn/functional/layers.h"
#include "ember/tensor.h"
#include "torch/nn/options/instancenorm.h"

namespace torch::nn::functional {

inline ember::Tensor instance_norm(const ember::Tensor& input,
                                   const InstanceNormFuncOptions& options = {}) {
  return ember::nn::functional::instance_norm(input, {.running_mean = options.running_mean(),
                                                      .running_var = options.running_var(),
                                                      .weight = options.weight(),
                                                      .bias = options.bias(),
                                                      .use_input_stats = options.use_input_stats(),
                                                      .momentum = options.momentum(),
                                                      .eps = options.eps()});
}

}  // namespace torch::nn::functional
