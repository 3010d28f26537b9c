// torch.nn.functional's losses. `reduction` is "mean", "sum" or "none" (kl_div also takes
// "batchmean"); options follow PyTorch's keyword order:
//   F::cross_entropy(logits, target, {.ignore_index = -100, .label_smoothing = 0.1});
#pragma once

#include <cstdint>
#include <string>

#include "ember/tensor.h"

namespace ember::nn::functional {

struct CrossEntropyFuncOptions {
  Tensor weight = {};  // (C) per-class weight or undefined
  int64_t ignore_index = -100;
  std::string reduction = "mean";
  double label_smoothing = 0.0;
};
/// input (N, C, d1, ...) or (C) logits; target class indices (N, d1, ...) / () of int64, or
/// class probabilities of input's shape. A fused, numerically stable log_softmax + nll_loss.
Tensor cross_entropy(const Tensor& input, const Tensor& target,
                     CrossEntropyFuncOptions options = {});

struct NLLLossFuncOptions {
  Tensor weight = {};
  int64_t ignore_index = -100;
  std::string reduction = "mean";
};
/// input (N, C, d1, ...) or (C) log-probabilities; target (N, d1, ...) / () int64.
Tensor nll_loss(const Tensor& input, const Tensor& target, NLLLossFuncOptions options = {});

struct MSELossFuncOptions {
  std::string reduction = "mean";
};
Tensor mse_loss(const Tensor& input, const Tensor& target, MSELossFuncOptions options = {});

struct L1LossFuncOptions {
  std::string reduction = "mean";
};
Tensor l1_loss(const Tensor& input, const Tensor& target, L1LossFuncOptions options = {});

struct SmoothL1LossFuncOptions {
  std::string reduction = "mean";
  double beta = 1.0;
};
/// 0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (beta = 0: l1_loss).
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      SmoothL1LossFuncOptions options = {});

struct HuberLossFuncOptions {
  std::string reduction = "mean";
  double delta = 1.0;
};
/// 0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta).
Tensor huber_loss(const Tensor& input, const Tensor& target, HuberLossFuncOptions options = {});

struct BinaryCrossEntropyFuncOptions {
  Tensor weight = {};  // broadcast to input
  std::string reduction = "mean";
};
/// -w (t log x + (1 - t) log(1 - x)), each log clamped at -100; input in [0, 1].
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            BinaryCrossEntropyFuncOptions options = {});

struct BinaryCrossEntropyWithLogitsFuncOptions {
  Tensor weight = {};
  std::string reduction = "mean";
  Tensor pos_weight = {};  // broadcast along the class dim (the last)
};
/// binary_cross_entropy(sigmoid(x), t) computed stably from the logits.
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        BinaryCrossEntropyWithLogitsFuncOptions options = {});

struct KLDivFuncOptions {
  std::string reduction = "mean";  // "batchmean" divides the sum by input.size(0)
  bool log_target = false;
};
/// target (log target) against input log-probabilities: t (log t - x).
Tensor kl_div(const Tensor& input, const Tensor& target, KLDivFuncOptions options = {});

struct CosineEmbeddingLossFuncOptions {
  double margin = 0.0;
  std::string reduction = "mean";
};
/// 1 - cos(x1, x2) where target == 1, max(0, cos - margin) where target == -1.
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             CosineEmbeddingLossFuncOptions options = {});

struct MarginRankingLossFuncOptions {
  double margin = 0.0;
  std::string reduction = "mean";
};
/// max(0, -target (x1 - x2) + margin).
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           MarginRankingLossFuncOptions options = {});

struct TripletMarginLossFuncOptions {
  double margin = 1.0;
  double p = 2.0;
  double eps = 1e-6;
  bool swap = false;
  std::string reduction = "mean";
};
/// max(0, margin + d(a, p) - d(a, n)) with d the pairwise distance.
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           TripletMarginLossFuncOptions options = {});

}  // namespace ember::nn::functional
