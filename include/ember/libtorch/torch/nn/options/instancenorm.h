// LibTorch's options for InstanceNorm1d/2d/3d and F::instance_norm:
//   torch::nn::InstanceNorm2dOptions(64).affine(true)
#pragma once

#include <cstdint>

#include "ember/tensor.h"
#include "torch/arg.h"

namespace torch::nn {

struct InstanceNormOptions {
  /* implicit */ InstanceNormOptions(int64_t num_features)  // NOLINT
      : num_features_(num_features) {}
  TORCH_ARG(int64_t, num_features);
  TORCH_ARG(double, eps) = 1e-5;
  TORCH_ARG(double, momentum) = 0.1;
  TORCH_ARG(bool, affine) = false;
  TORCH_ARG(bool, track_running_stats) = false;
};
using InstanceNorm1dOptions = InstanceNormOptions;
using InstanceNorm2dOptions = InstanceNormOptions;
using InstanceNorm3dOptions = InstanceNormOptions;

namespace functional {
struct InstanceNormFuncOptions {
  TORCH_ARG(ember::Tensor, running_mean) = ember::Tensor();
  TORCH_ARG(ember::Tensor, running_var) = ember::Tensor();
  TORCH_ARG(ember::Tensor, weight) = ember::Tensor();
  TORCH_ARG(ember::Tensor, bias) = ember::Tensor();
  TORCH_ARG(bool, use_input_stats) = true;
  TORCH_ARG(double, momentum) = 0.1;
  TORCH_ARG(double, eps) = 1e-5;
};
}  // namespace functional

}  // namespace torch::nn
