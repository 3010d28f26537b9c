// Loss modules: torch/nn/modules/loss.py (1.13) over nn::functional. The weight tensors are
// registered as buffers (PyTorch's _WeightedLoss / BCEWithLogitsLoss), and the options keep the
// registered handles, so module.to() conversions reach the functional call.
#include "ember/nn/layers/loss.h"

namespace ember::nn {

namespace detail {
void check_reduction(const char* op, const std::string& reduction, bool allow_batchmean) {
  EMBER_CHECK(reduction == "mean" || reduction == "sum" || reduction == "none" ||
                  (allow_batchmean && reduction == "batchmean"),
              op, reduction, " is not a valid value for reduction (expected 'mean', 'sum'",
              allow_batchmean ? ", 'batchmean'" : "", " or 'none')");
}
}  // namespace detail

KLDivLossImpl::KLDivLossImpl(KLDivLossOptions options) : options(std::move(options)) {
  detail::check_reduction("KLDivLoss", this->options.reduction, true);
}

CrossEntropyLossImpl::CrossEntropyLossImpl(CrossEntropyLossOptions options)
    : options(std::move(options)) {
  detail::check_reduction("CrossEntropyLoss", this->options.reduction);
  EMBER_CHECK(this->options.label_smoothing >= 0 && this->options.label_smoothing <= 1,
              "CrossEntropyLoss", "label_smoothing must be between 0.0 and 1.0, got ",
              this->options.label_smoothing);
  this->options.weight = register_buffer("weight", this->options.weight);
}

NLLLossImpl::NLLLossImpl(NLLLossOptions options) : options(std::move(options)) {
  detail::check_reduction("NLLLoss", this->options.reduction);
  this->options.weight = register_buffer("weight", this->options.weight);
}

BCELossImpl::BCELossImpl(BCELossOptions options) : options(std::move(options)) {
  detail::check_reduction("BCELoss", this->options.reduction);
  this->options.weight = register_buffer("weight", this->options.weight);
}

BCEWithLogitsLossImpl::BCEWithLogitsLossImpl(BCEWithLogitsLossOptions options)
    : options(std::move(options)) {
  detail::check_reduction("BCEWithLogitsLoss", this->options.reduction);
  this->options.weight = register_buffer("weight", this->options.weight);
  this->options.pos_weight = register_buffer("pos_weight", this->options.pos_weight);
}

CosineEmbeddingLossImpl::CosineEmbeddingLossImpl(CosineEmbeddingLossOptions options)
    : options(std::move(options)) {
  detail::check_reduction("CosineEmbeddingLoss", this->options.reduction);
}

MarginRankingLossImpl::MarginRankingLossImpl(MarginRankingLossOptions options)
    : options(std::move(options)) {
  detail::check_reduction("MarginRankingLoss", this->options.reduction);
}

TripletMarginLossImpl::TripletMarginLossImpl(TripletMarginLossOptions options)
    : options(std::move(options)) {
  detail::check_reduction("TripletMarginLoss", this->options.reduction);
}

}  // namespace ember::nn
