// torch::nn::functional's losses with LibTorch's options (the loss layers' options):
//   F::cross_entropy(logits, target, F::CrossEntropyFuncOptions().reduction(torch::kSum))
//   F::mse_loss(a, b, torch::kSum)   F::nll_loss(logp, target, F::NLLLossFuncOptions().weight(w))
// As LibTorch 1.13's, F::smooth_l1_loss reads beta from its fourth argument, not options.beta()
// (the SmoothL1Loss layer uses options.beta()).
#pragma once

#include "ember/nn/functional/loss.h"
#include "ember/tensor.h"
#include "torch/enum.h"
#include "torch/nn/options/loss.h"

namespace torch::nn::functional {

namespace detail {
namespace E = ember::nn::functional;
using torch::detail::enum_spelling;

// ember's options for each loss from LibTorch's.
inline E::L1LossFuncOptions loss_options(const L1LossFuncOptions& o) {
  return {.reduction = enum_spelling(o.reduction())};
}
inline E::MSELossFuncOptions loss_options(const MSELossFuncOptions& o) {
  return {.reduction = enum_spelling(o.reduction())};
}
inline E::SmoothL1LossFuncOptions loss_options(const SmoothL1LossFuncOptions& o) {
  return {.reduction = enum_spelling(o.reduction()), .beta = o.beta()};
}
inline E::HuberLossFuncOptions loss_options(const HuberLossFuncOptions& o) {
  return {.reduction = enum_spelling(o.reduction()), .delta = o.delta()};
}
inline E::KLDivFuncOptions loss_options(const KLDivFuncOptions& o) {
  return {.reduction = enum_spelling(o.reduction()), .log_target = o.log_target()};
}
inline E::BinaryCrossEntropyFuncOptions loss_options(const BinaryCrossEntropyFuncOptions& o) {
  return {.weight = o.weight(), .reduction = enum_spelling(o.reduction())};
}
inline E::BinaryCrossEntropyWithLogitsFuncOptions loss_options(
    const BinaryCrossEntropyWithLogitsFuncOptions& o) {
  return {.weight = o.weight(),
          .reduction = enum_spelling(o.reduction()),
          .pos_weight = o.pos_weight()};
}
inline E::NLLLossFuncOptions loss_options(const NLLLossFuncOptions& o) {
  return {.weight = o.weight(),
          .ignore_index = o.ignore_index(),
          .reduction = enum_spelling(o.reduction())};
}
inline E::CrossEntropyFuncOptions loss_options(const CrossEntropyFuncOptions& o) {
  return {.weight = o.weight(),
          .ignore_index = o.ignore_index(),
          .reduction = enum_spelling(o.reduction()),
          .label_smoothing = o.label_smoothing()};
}
inline E::CosineEmbeddingLossFuncOptions loss_options(const CosineEmbeddingLossFuncOptions& o) {
  return {.margin = o.margin(), .reduction = enum_spelling(o.reduction())};
}
inline E::MarginRankingLossFuncOptions loss_options(const MarginRankingLossFuncOptions& o) {
  return {.margin = o.margin(), .reduction = enum_spelling(o.reduction())};
}
inline E::TripletMarginLossFuncOptions loss_options(const TripletMarginLossFuncOptions& o) {
  return {.margin = o.margin(),
          .p = o.p(),
          .eps = o.eps(),
          .swap = o.swap(),
          .reduction = enum_spelling(o.reduction())};
}
}  // namespace detail

// loss(input, target, options) for the two-input losses.
#define EMBER_TORCH_LOSS_FUNCTION(function, Options)                                      \
  inline ember::Tensor function(const ember::Tensor& input, const ember::Tensor& target,  \
                                const Options& options = {}) {                            \
    return ember::nn::functional::function(input, target, detail::loss_options(options)); \
  }
EMBER_TORCH_LOSS_FUNCTION(l1_loss, L1LossFuncOptions)
EMBER_TORCH_LOSS_FUNCTION(mse_loss, MSELossFuncOptions)
EMBER_TORCH_LOSS_FUNCTION(huber_loss, HuberLossFuncOptions)
EMBER_TORCH_LOSS_FUNCTION(kl_div, KLDivFuncOptions)
EMBER_TORCH_LOSS_FUNCTION(binary_cross_entropy, BinaryCrossEntropyFuncOptions)
EMBER_TORCH_LOSS_FUNCTION(binary_cross_entropy_with_logits, BinaryCrossEntropyWithLogitsFuncOptions)
EMBER_TORCH_LOSS_FUNCTION(nll_loss, NLLLossFuncOptions)
EMBER_TORCH_LOSS_FUNCTION(cross_entropy, CrossEntropyFuncOptions)
#undef EMBER_TORCH_LOSS_FUNCTION

inline ember::Tensor smooth_l1_loss(const ember::Tensor& input, const ember::Tensor& target,
                                    const SmoothL1LossFuncOptions& options = {}, double beta = 1.) {
  return ember::nn::functional::smooth_l1_loss(
      input, target,
      {.reduction = torch::detail::enum_spelling(options.reduction()), .beta = beta});
}
inline ember::Tensor cosine_embedding_loss(const ember::Tensor& input1, const ember::Tensor& input2,
                                           const ember::Tensor& target,
                                           const CosineEmbeddingLossFuncOptions& options = {}) {
  return ember::nn::functional::cosine_embedding_loss(input1, input2, target,
                                                      detail::loss_options(options));
}
inline ember::Tensor margin_ranking_loss(const ember::Tensor& input1, const ember::Tensor& input2,
                                         const ember::Tensor& target,
                                         const MarginRankingLossFuncOptions& options = {}) {
  return ember::nn::functional::margin_ranking_loss(input1, input2, target,
                                                    detail::loss_options(options));
}
inline ember::Tensor triplet_margin_loss(const ember::Tensor& anchor, const ember::Tensor& positive,
                                         const ember::Tensor& negative,
                                         const TripletMarginLossFuncOptions& options = {}) {
  return ember::nn::functional::triplet_margin_loss(anchor, positive, negative,
                                                    detail::loss_options(options));
}

}  // namespace torch::nn::functional
