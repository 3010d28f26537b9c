// LibTorch's options for LayerNorm and GroupNorm and their functional forms:
//   torch::nn::LayerNormOptions({16}).eps(1e-6)   F::GroupNormFuncOptions(2).weight(w)
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "ember/tensor.h"
#include "torch/arg.h"

namespace torch::nn {

struct LayerNormOptions {
  /* implicit */ LayerNormOptions(std::vector<int64_t> normalized_shape)  // NOLINT
      : normalized_shape_(std::move(normalized_shape)) {}
  TORCH_ARG(std::vector<int64_t>, normalized_shape);
  TORCH_ARG(double, eps) = 1e-5;
  TORCH_ARG(bool, elementwise_affine) = true;
};

struct GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels)
      : num_groups_(num_groups), num_channels_(num_channels) {}
  TORCH_ARG(int64_t, num_groups);
  TORCH_ARG(int64_t, num_channels);
  TORCH_ARG(double, eps) = 1e-5;
  TORCH_ARG(bool, affine) = true;
};

namespace functional {

struct LayerNormFuncOptions {
  /* implicit */ LayerNormFuncOptions(std::vector<int64_t> normalized_shape)  // NOLINT
      : normalized_shape_(std::move(normalized_shape)) {}
  TORCH_ARG(std::vector<int64_t>, normalized_shape);
  TORCH_ARG(ember::Tensor, weight) = {};
  TORCH_ARG(ember::Tensor, bias) = {};
  TORCH_ARG(double, eps) = 1e-5;
};

struct GroupNormFuncOptions {
  /* implicit */ GroupNormFuncOptions(int64_t num_groups) : num_groups_(num_groups) {}  // NOLINT
  TORCH_ARG(int64_t, num_groups);
  TORCH_ARG(ember::Tensor, weight) = {};
  TORCH_ARG(ember::Tensor, bias) = {};
  TORCH_ARG(double, eps) = 1e-5;
};

struct NormalizeFuncOptions {
  TORCH_ARG(double, p) = 2.0;
  TORCH_ARG(int64_t, dim) = 1;
  TORCH_ARG(double, eps) = 1e-12;
};

}  // namespace functional
}  // namespace torch::nn
