// Loss modules (torch.nn.CrossEntropyLoss, MSELoss, ...): the functional losses as layers with
// PyTorch's options. Per-class weights (and BCEWithLogitsLoss's pos_weight) are buffers, as in
// PyTorch's _WeightedLoss, so they follow module.to() and appear in state_dict when given.
//   nn::CrossEntropyLoss criterion({.label_smoothing = 0.1});  Tensor loss = criterion(out, y);
#pragma once

#include "ember/nn/functional/loss.h"
#include "ember/nn/module.h"

namespace ember::nn {

// The options are the functional keywords, which follow the modules' keyword order.
using CrossEntropyLossOptions = functional::CrossEntropyFuncOptions;
using NLLLossOptions = functional::NLLLossFuncOptions;
using MSELossOptions = functional::MSELossFuncOptions;
using L1LossOptions = functional::L1LossFuncOptions;
using SmoothL1LossOptions = functional::SmoothL1LossFuncOptions;
using HuberLossOptions = functional::HuberLossFuncOptions;
using BCELossOptions = functional::BinaryCrossEntropyFuncOptions;
using BCEWithLogitsLossOptions = functional::BinaryCrossEntropyWithLogitsFuncOptions;
using KLDivLossOptions = functional::KLDivFuncOptions;
using CosineEmbeddingLossOptions = functional::CosineEmbeddingLossFuncOptions;
using MarginRankingLossOptions = functional::MarginRankingLossFuncOptions;
using TripletMarginLossOptions = functional::TripletMarginLossFuncOptions;

namespace detail {
/// Throws unless reduction is one of the allowed names (checked at construction, as PyTorch's
/// _Reduction.get_enum does on the first call).
void check_reduction(const char* op, const std::string& reduction, bool allow_batchmean = false);
}  // namespace detail

// A loss over (input, target) whose options carry no tensors.
#define EMBER_SIMPLE_LOSS(Name, fn)                                                            \
  class Name##Impl : public Module {                                                           \
   public:                                                                                     \
    explicit Name##Impl(Name##Options options = {}) : options(std::move(options)) {            \
      detail::check_reduction(#Name, this->options.reduction);                                 \
    }                                                                                          \
    Tensor forward(const Tensor& input, const Tensor& target) {                                \
      return functional::fn(input, target, options);                                           \
    }                                                                                          \
    Name##Options options;                                                                     \
  };                                                                                           \
  class Name : public ModuleHolder<Name##Impl> {                                               \
   public:                                                                                     \
    using ModuleHolder::ModuleHolder;                                                          \
    Name(Name##Options options = {}) /* NOLINT */                                              \
        : ModuleHolder(std::make_shared<Name##Impl>(std::move(options))) {}                    \
  };

/// Squared error; input and target broadcast.
EMBER_SIMPLE_LOSS(MSELoss, mse_loss)
/// Absolute error.
EMBER_SIMPLE_LOSS(L1Loss, l1_loss)
/// Quadratic below beta, linear above (divided by beta in the quadratic part).
EMBER_SIMPLE_LOSS(SmoothL1Loss, smooth_l1_loss)
/// Quadratic below delta, linear above (scaled by delta in the linear part).
EMBER_SIMPLE_LOSS(HuberLoss, huber_loss)
#undef EMBER_SIMPLE_LOSS

/// KL divergence of input log-probabilities from target (log-)probabilities; reduction may be
/// "batchmean" (the mathematically correct mean, per sample).
class KLDivLossImpl : public Module {
 public:
  explicit KLDivLossImpl(KLDivLossOptions options = {});
  Tensor forward(const Tensor& input, const Tensor& target) {
    return functional::kl_div(input, target, options);
  }
  KLDivLossOptions options;
};
class KLDivLoss : public ModuleHolder<KLDivLossImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  KLDivLoss(KLDivLossOptions options = {})  // NOLINT
      : ModuleHolder(std::make_shared<KLDivLossImpl>(std::move(options))) {}
};

/// log_softmax + nll_loss over class indices or class probabilities; weight is a buffer.
class CrossEntropyLossImpl : public Module {
 public:
  explicit CrossEntropyLossImpl(CrossEntropyLossOptions options = {});
  Tensor forward(const Tensor& input, const Tensor& target) {
    return functional::cross_entropy(input, target, options);
  }
  CrossEntropyLossOptions options;  // options.weight is the "weight" buffer
};
class CrossEntropyLoss : public ModuleHolder<CrossEntropyLossImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  CrossEntropyLoss(CrossEntropyLossOptions options = {})  // NOLINT
      : ModuleHolder(std::make_shared<CrossEntropyLossImpl>(std::move(options))) {}
};

/// Negative log-likelihood of log-probabilities at the target indices; weight is a buffer.
class NLLLossImpl : public Module {
 public:
  explicit NLLLossImpl(NLLLossOptions options = {});
  Tensor forward(const Tensor& input, const Tensor& target) {
    return functional::nll_loss(input, target, options);
  }
  NLLLossOptions options;
};
class NLLLoss : public ModuleHolder<NLLLossImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  NLLLoss(NLLLossOptions options = {})  // NOLINT
      : ModuleHolder(std::make_shared<NLLLossImpl>(std::move(options))) {}
};

/// Binary cross-entropy of probabilities; weight (broadcast to input) is a buffer.
class BCELossImpl : public Module {
 public:
  explicit BCELossImpl(BCELossOptions options = {});
  Tensor forward(const Tensor& input, const Tensor& target) {
    return functional::binary_cross_entropy(input, target, options);
  }
  BCELossOptions options;
};
class BCELoss : public ModuleHolder<BCELossImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  BCELoss(BCELossOptions options = {})  // NOLINT
      : ModuleHolder(std::make_shared<BCELossImpl>(std::move(options))) {}
};

/// Binary cross-entropy of logits (stable); weight and pos_weight are buffers.
class BCEWithLogitsLossImpl : public Module {
 public:
  explicit BCEWithLogitsLossImpl(BCEWithLogitsLossOptions options = {});
  Tensor forward(const Tensor& input, const Tensor& target) {
    return functional::binary_cross_entropy_with_logits(input, target, options);
  }
  BCEWithLogitsLossOptions options;
};
class BCEWithLogitsLoss : public ModuleHolder<BCEWithLogitsLossImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  BCEWithLogitsLoss(BCEWithLogitsLossOptions options = {})  // NOLINT
      : ModuleHolder(std::make_shared<BCEWithLogitsLossImpl>(std::move(options))) {}
};

/// 1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1.
class CosineEmbeddingLossImpl : public Module {
 public:
  explicit CosineEmbeddingLossImpl(CosineEmbeddingLossOptions options = {});
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
    return functional::cosine_embedding_loss(input1, input2, target, options);
  }
  CosineEmbeddingLossOptions options;
};
class CosineEmbeddingLoss : public ModuleHolder<CosineEmbeddingLossImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  CosineEmbeddingLoss(CosineEmbeddingLossOptions options = {})  // NOLINT
      : ModuleHolder(std::make_shared<CosineEmbeddingLossImpl>(std::move(options))) {}
};

/// max(0, -target (x1 - x2) + margin): target 1 wants x1 ranked above x2.
class MarginRankingLossImpl : public Module {
 public:
  explicit MarginRankingLossImpl(MarginRankingLossOptions options = {});
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
    return functional::margin_ranking_loss(input1, input2, target, options);
  }
  MarginRankingLossOptions options;
};
class MarginRankingLoss : public ModuleHolder<MarginRankingLossImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  MarginRankingLoss(MarginRankingLossOptions options = {})  // NOLINT
      : ModuleHolder(std::make_shared<MarginRankingLossImpl>(std::move(options))) {}
};

/// max(0, margin + d(anchor, positive) - d(anchor, negative)), d the p-norm distance.
class TripletMarginLossImpl : public Module {
 public:
  explicit TripletMarginLossImpl(TripletMarginLossOptions options = {});
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) {
    return functional::triplet_margin_loss(anchor, positive, negative, options);
  }
  TripletMarginLossOptions options;
};
class TripletMarginLoss : public ModuleHolder<TripletMarginLossImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  TripletMarginLoss(TripletMarginLossOptions options = {})  // NOLINT
      : ModuleHolder(std::make_shared<TripletMarginLossImpl>(std::move(options))) {}
};

}  // namespace ember::nn
