// ATen's positional signatures over ember's nn::functional ops (torch/detail/aten_functions.h).
#include "torch/detail/aten_functions.h"

#include "ember/error.h"
#include "ember/index_ops.h"

namespace at {

namespace F = ember::nn::functional;

namespace detail {

std::string reduction_name(const char* op, int64_t reduction) {
  switch (reduction) {
    case Reduction::None: return "none";
    case Reduction::Mean: return "mean";
    case Reduction::Sum: return "sum";
    default:
      ember::fail(op, "reduction must be Reduction::None, Mean or Sum (0, 1 or 2), got ",
                  reduction);
  }
}

}  // namespace detail

using detail::reduction_name;

Tensor nll_loss(const Tensor& self, const Tensor& target, const Tensor& weight,
                int64_t reduction, int64_t ignore_index) {
  return F::nll_loss(self, target,
                     {.weight = weight, .ignore_index = ignore_index,
                      .reduction = reduction_name("nll_loss", reduction)});
}

Tensor cross_entropy_loss(const Tensor& self, const Tensor& target, const Tensor& weight,
                          int64_t reduction, int64_t ignore_index, double label_smoothing) {
  return F::cross_entropy(self, target,
                          {.weight = weight, .ignore_index = ignore_index,
                           .reduction = reduction_name("cross_entropy_loss", reduction),
                           .label_smoothing = label_smoothing});
}

Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  return F::mse_loss(self, target, {.reduction = reduction_name("mse_loss", reduction)});
}

Tensor l1_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  return F::l1_loss(self, target, {.reduction = reduction_name("l1_loss", reduction)});
}

Tensor smooth_l1_loss(const Tensor& self, const Tensor& target, int64_t reduction, double beta) {
  return F::smooth_l1_loss(self, target,
                           {.reduction = reduction_name("smooth_l1_loss", reduction), .beta = beta});
}

Tensor huber_loss(const Tensor& self, const Tensor& target, int64_t reduction, double delta) {
  return F::huber_loss(self, target,
                       {.reduction = reduction_name("huber_loss", reduction), .delta = delta});
}

Tensor binary_cross_entropy(const Tensor& self, const Tensor& target, const Tensor& weight,
                            int64_t reduction) {
  return F::binary_cross_entropy(
      self, target,
      {.weight = weight, .reduction = reduction_name("binary_cross_entropy", reduction)});
}

Tensor binary_cross_entropy_with_logits(const Tensor& self, const Tensor& target,
                                        const Tensor& weight, const Tensor& pos_weight,
                                        int64_t reduction) {
  return F::binary_cross_entropy_with_logits(
      self, target,
      {.weight = weight,
       .reduction = reduction_name("binary_cross_entropy_with_logits", reduction),
       .pos_weight = pos_weight});
}

Tensor kl_div(const Tensor& self, const Tensor& target, int64_t reduction, bool log_target) {
  return F::kl_div(self, target,
                   {.reduction = reduction_name("kl_div", reduction), .log_target = log_target});
}

Tensor max_pool2d(const Tensor& self, ember::IntArrayRef kernel_size, ember::IntArrayRef stride,
                  ember::IntArrayRef padding, ember::IntArrayRef dilation, bool ceil_mode) {
  return F::max_pool2d(self, kernel_size,
                       {.stride = stride, .padding = padding, .dilation = dilation,
                        .ceil_mode = ceil_mode});
}

Tensor constant_pad_nd(const Tensor& self, ember::IntArrayRef pad, const ember::Scalar& value) {
  return F::pad(self, pad, {.mode = "constant", .value = value.to<double>()});
}

namespace {

// ATen's fixed-rank pads: `dims` last dims padded, an input of dims + 1 or dims + 2 dims.
Tensor fixed_pad(const char* op, const char* mode, int64_t dims, const Tensor& self,
                 ember::IntArrayRef padding) {
  EMBER_CHECK(int64_t(padding.size()) == 2 * dims, op, "padding size is expected to be ",
              2 * dims, ", but got: ", padding.size());
  EMBER_CHECK(self.dim() == dims + 1 || self.dim() == dims + 2, op, "Expected ", dims + 1, "D or ",
              dims + 2, "D (batch mode) tensor with possibly 0 batch size and other non-zero "
              "dimensions for input, but got: ", self.sizes());
  return F::pad(self, padding, {.mode = mode});
}

}  // namespace

Tensor reflection_pad1d(const Tensor& self, ember::IntArrayRef padding) {
  return fixed_pad("reflection_pad1d", "reflect", 1, self, padding);
}
Tensor reflection_pad2d(const Tensor& self, ember::IntArrayRef padding) {
  return fixed_pad("reflection_pad2d", "reflect", 2, self, padding);
}
Tensor replication_pad1d(const Tensor& self, ember::IntArrayRef padding) {
  return fixed_pad("replication_pad1d", "replicate", 1, self, padding);
}
Tensor replication_pad2d(const Tensor& self, ember::IntArrayRef padding) {
  return fixed_pad("replication_pad2d", "replicate", 2, self, padding);
}

std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& self, int64_t dim, bool sorted,
                                              bool return_inverse, bool return_counts) {
  auto r = ember::unique(self, {.sorted = sorted, .return_inverse = return_inverse,
                                .return_counts = return_counts, .dim = dim});
  return {r.output, r.inverse_indices, r.counts};
}

Tensor avg_pool2d(const Tensor& self, ember::IntArrayRef kernel_size, ember::IntArrayRef stride,
                  ember::IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                  std::optional<int64_t> divisor_override) {
  return F::avg_pool2d(self, kernel_size,
                       {.stride = stride, .padding = padding, .ceil_mode = ceil_mode,
                        .count_include_pad = count_include_pad,
                        .divisor_override = divisor_override});
}

}  // namespace at
