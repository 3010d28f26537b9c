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
#include <tuple>

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

/// ATen's reflection and replication pads of the last 1 or 2 dims (padding: 2 or 4 amounts,
/// last dim first, as F::pad).
Tensor reflection_pad1d(const Tensor& self, ember::IntArrayRef padding);
Tensor reflection_pad2d(const Tensor& self, ember::IntArrayRef padding);
Tensor replication_pad1d(const Tensor& self, ember::IntArrayRef padding);
Tensor replication_pad2d(const Tensor& self, ember::IntArrayRef padding);

/// (unique slices along dim, inverse indices, counts); the last two undefined unless asked for.
std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& self, int64_t dim, bool sorted = true,
                                              bool return_inverse = false,
                                              bool return_counts = false);

/// The methods t.max(...) / t.min(...) as functions: of all elements, along a dim (values and
/// indices), or elementwise with another tensor.
inline Tensor max(const Tensor& self) { return self.max(); }
inline std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim = false) {
  return self.max(dim, keepdim);
}
inline Tensor max(const Tensor& self, const Tensor& other) { return self.maximum(other); }
inline Tensor min(const Tensor& self) { return self.min(); }
inline std::tuple<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim = false) {
  return self.min(dim, keepdim);
}
inline Tensor min(const Tensor& self, const Tensor& other) { return self.minimum(other); }

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
using at::max;
using at::max_pool2d;
using at::min;
using at::mse_loss;
using at::nll_loss;
using at::reflection_pad1d;
using at::reflection_pad2d;
using at::replication_pad1d;
using at::replication_pad2d;
using at::norm;
using at::smooth_l1_loss;
using at::unique_dim;
}  // namespace torch
