// The namespace-level functions whose LibTorch signature is ATen's positional one — weight,
// reduction (torch::Reduction), ignore_index, ... — where ember's take an options struct:
//   torch::nll_loss(output, target, /*weight=*/{}, torch::Reduction::Sum)
//   torch::max_pool2d(x, /*kernel_size=*/2, /*stride=*/2)
//   torch::constant_pad_nd(x, {1, 1, 2, 2}, 0.5)
// Each forwards to ember's nn::functional op, so the numbers are ember's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ember/nn/functional.h"
#include "ember/tensor.h"

namespace at {

/// at::Reduction::Reduction, the reduction argument of ATen's losses.
namespace Reduction {
enum Reduction { None, Mean, Sum, END };
}  // namespace Reduction

namespace detail {
/// ember's spelling of a reduction ("none", "mean", "sum"); others are an error naming `op`.
std::string reduction_name(const char* op, int64_t reduction);
}  // namespace detail

using ember::Tensor;

Tensor nll_loss(const Tensor& self, const Tensor& target, const Tensor& weight = {},
                int64_t reduction = Reduction::Mean, int64_t ignore_index = -100);
Tensor cross_entropy_loss(const Tensor& self, const Tensor& target, const Tensor& weight = {},
                          int64_t reduction = Reduction::Mean, int64_t ignore_index = -100,
                          double label_smoothing = 0.0);
Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction = Reduction::Mean);
Tensor l1_loss(const Tensor& self, const Tensor& target, int64_t reduction = Reduction::Mean);
Tensor smooth_l1_loss(const Tensor& self, const Tensor& target,
                      int64_t reduction = Reduction::Mean, double beta = 1.0);
Tensor huber_loss(const Tensor& self, const Tensor& target, int64_t reduction = Reduction::Mean,
                  double delta = 1.0);
Tensor binary_cross_entropy(const Tensor& self, const Tensor& target, const Tensor& weight = {},
                            int64_t reduction = Reduction::Mean);
Tensor binary_cross_entropy_with_logits(const Tensor& self, const Tensor& target,
                                        const Tensor& weight = {}, const Tensor& pos_weight = {},
                                        int64_t reduction = Reduction::Mean);
Tensor kl_div(const Tensor& self, const Tensor& target, int64_t reduction = Reduction::Mean,
              bool log_target = false);

Tensor max_pool2d(const Tensor& self, ember::IntArrayRef kernel_size,
                  ember::IntArrayRef stride = {}, ember::IntArrayRef padding = 0,
                  ember::IntArrayRef dilation = 1, bool ceil_mode = false);
Tensor avg_pool2d(const Tensor& self, ember::IntArrayRef kernel_size,
                  ember::IntArrayRef stride = {}, ember::IntArrayRef padding = 0,
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);

/// Pads the last dims with `value` (pad = {left, right} of the last dim, then of the one before).
Tensor constant_pad_nd(const Tensor& self, ember::IntArrayRef pad, const ember::Scalar& value = 0);

/// The p-norm of all elements, or over `dim`: the method t.norm(...) as a function.
inline Tensor norm(const Tensor& self, const ember::Scalar& p = 2) { return self.norm(p); }
inline Tensor norm(const Tensor& self, const ember::Scalar& p, ember::IntArrayRef dim,
                   bool keepdim = false) {
  return self.norm(p, dim, keepdim);
}

}  // namespace at

namespace torch {
namespace Reduction = at::Reduction;
using at::avg_pool2d;
using at::binary_cross_entropy;
using at::binary_cross_entropy_with_logits;
using at::constant_pad_nd;
using at::cross_entropy_loss;
using at::huber_loss;
using at::kl_div;
using at::l1_loss;
using at::max_pool2d;
using at::mse_loss;
using at::nll_loss;
using at::norm;
using at::smooth_l1_loss;
}  // namespace torch
