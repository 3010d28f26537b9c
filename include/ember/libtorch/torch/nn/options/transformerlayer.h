// LibTorch's options for TransformerEncoderLayer and TransformerDecoderLayer (LibTorch 1.13 has
// no batch_first or norm_first: inputs are (S, N, E), norms come after the residual adds):
//   torch::nn::TransformerEncoderLayerOptions(16, 4).dim_feedforward(32).dropout(0.0)
//       .activation(torch::kGELU)
#pragma once

#include <cstdint>
#include <functional>
#include <variant>

#include "ember/tensor.h"
#include "torch/arg.h"
#include "torch/enum.h"

namespace torch::nn {

/// kReLU, kGELU or a function (ember's transformer layers take the first two only).
using activation_t = std::variant<enumtype::kReLU, enumtype::kGELU,
                                  std::function<ember::Tensor(const ember::Tensor&)>>;

struct TransformerEncoderLayerOptions {
  /* implicit */ TransformerEncoderLayerOptions(int64_t d_model, int64_t nhead)  // NOLINT
      : d_model_(d_model), nhead_(nhead) {}
  TORCH_ARG(int64_t, d_model);
  TORCH_ARG(int64_t, nhead);
  TORCH_ARG(int64_t, dim_feedforward) = 2048;
  TORCH_ARG(double, dropout) = 0.1;
  TORCH_ARG(activation_t, activation) = torch::kReLU;
};

struct TransformerDecoderLayerOptions {
  TransformerDecoderLayerOptions(int64_t d_model, int64_t nhead)
      : d_model_(d_model), nhead_(nhead) {}
  TORCH_ARG(int64_t, d_model);
  TORCH_ARG(int64_t, nhead);
  TORCH_ARG(int64_t, dim_feedforward) = 2048;
  TORCH_ARG(double, dropout) = 0.1;
  TORCH_ARG(activation_t, activation) = torch::kReLU;
};

}  // namespace torch::nn
