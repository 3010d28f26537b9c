// LibTorch's options for BatchNorm1d/2d and F::batch_norm:
//   torch::nn::BatchNorm2dOptions(64).momentum(0.01).eps(1e-3)
#pragma once

#include <cstdint>
#include <optional>

#include "ember/tensor.h"
#include "torch/arg.h"

namespace torch::nn {

struct BatchNormOptions {
  /* implicit */ BatchNormOptions(int64_t num_features) : num_features_(num_features) {}  // NOLINT
  TORCH_ARG(int64_t, num_features);
  TORCH_ARG(double, eps) = 1e-5;
  TORCH_ARG(std::optional<double>, momentum) = 0.1;  // nullopt: a cumulative average
  TORCH_ARG(bool, affine) = true;
  TORCH_ARG(bool, track_running_stats) = true;
};
using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;
using BatchNorm3dOptions = BatchNormOptions;

namespace functional {
struct BatchNormFuncOptions {
  TORCH_ARG(ember::Tensor, weight) = ember::Tensor();
  TORCH_ARG(ember::Tensor, bias) = ember::Tensor();
  TORCH_ARG(bool, training) = false;
  TORCH_ARG(std::optional<double>, momentum) = 0.1;
  TORCH_ARG(double, eps) = 1e-5;
};
}  // namespace functional

}  // namespace torch::nn
