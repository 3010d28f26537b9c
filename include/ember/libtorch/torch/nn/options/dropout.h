// LibTorch's options for Dropout and Dropout2d, and F::dropout's:
//   torch::nn::Dropout(torch::nn::DropoutOptions().p(0.2))
//   F::DropoutFuncOptions().p(0.5).training(true)
#pragma once

#include "torch/arg.h"

namespace torch::nn {

struct DropoutOptions {
  /* implicit */ DropoutOptions(double p = 0.5) : p_(p) {}  // NOLINT
  TORCH_ARG(double, p);
  TORCH_ARG(bool, inplace) = false;
};
using Dropout2dOptions = DropoutOptions;
using Dropout3dOptions = DropoutOptions;

namespace functional {
struct DropoutFuncOptions {
  TORCH_ARG(double, p) = 0.5;
  TORCH_ARG(bool, training) = true;
  TORCH_ARG(bool, inplace) = false;
};
using Dropout2dFuncOptions = DropoutFuncOptions;
using Dropout3dFuncOptions = DropoutFuncOptions;
}  // namespace functional

}  // namespace torch::nn
