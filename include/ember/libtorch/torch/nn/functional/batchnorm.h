// F::batch_norm with LibTorch's options (eval mode unless training(true)):
//   F::batch_norm(x, running_mean, running_var, F::BatchNormFuncOptions().training(true))
#pragma once

#include "ember/nn/functional/layers.h"
#include "ember/tensor.h"
#include "torch/nn/options/batchnorm.h"

namespace torch::nn::functional {

inline ember::Tensor batch_norm(const ember::Tensor& input, const ember::Tensor& running_mean,
                                const ember::Tensor& running_var,
                                const BatchNormFuncOptions& options = {}) {
  return ember::nn::functional::batch_norm(input, running_mean, running_var,
                                           {.weight = options.weight(),
                                            .bias = options.bias(),
                                            .training = options.training(),
                                            .momentum = options.momentum(),
                                            .eps = options.eps()});
}

}  // namespace torch::nn::functional
