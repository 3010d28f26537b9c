// torch::nn's loss layers over ember's, from LibTorch's options:
//   torch::nn::CrossEntropyLoss()   torch::nn::MSELoss(torch::kSum)
//   torch::nn::NLLLoss(torch::nn::NLLLossOptions().weight(w).ignore_index(0))
#pragma once

#include <sstream>
#include <string>

#include "ember/nn/layers/loss.h"
#include "torch/nn/functional/loss.h"
#include "torch/nn/modules/utils.h"
#include "torch/nn/options/loss.h"

namespace torch::nn {

namespace detail {
// LibTorch's descriptions: most losses show nothing, these their margins.
template <class Options>
std::string loss_description(const Options&) {
  return {};
}
inline std::string loss_description(const CosineEmbeddingLossOptions& o) {
  std::ostringstream s;
  s << "margin=" << o.margin();
  return s.str();
}
inline std::string loss_description(const TripletMarginLossOptions& o) {
  std::ostringstream s;
  s << "margin=" << o.margin() << ", p=" << o.p() << ", eps=" << o.eps()
    << ", swap=" << bool_string(o.swap());
  return s.str();
}
}  // namespace detail

#define EMBER_TORCH_LOSS(Name)                                                                    \
  class Name##Impl : public ember::nn::Name##Impl {                                               \
   public:                                                                                        \
    explicit Name##Impl(const Name##Options& options_ = {})                                       \
        : ember::nn::Name##Impl(functional::detail::loss_options(options_)), options(options_) {} \
    EMBER_TORCH_LAYER_NAME(Name)                                                                  \
    std::string extra_repr() const override { return detail::loss_description(options); }         \
    Name##Options options;                                                                        \
  };                                                                                              \
  TORCH_MODULE(Name)
EMBER_TORCH_LOSS(L1Loss);
EMBER_TORCH_LOSS(MSELoss);
EMBER_TORCH_LOSS(SmoothL1Loss);
EMBER_TORCH_LOSS(HuberLoss);
EMBER_TORCH_LOSS(KLDivLoss);
EMBER_TORCH_LOSS(BCELoss);
EMBER_TORCH_LOSS(BCEWithLogitsLoss);
EMBER_TORCH_LOSS(NLLLoss);
EMBER_TORCH_LOSS(CrossEntropyLoss);
EMBER_TORCH_LOSS(CosineEmbeddingLoss);
EMBER_TORCH_LOSS(MarginRankingLoss);
EMBER_TORCH_LOSS(TripletMarginLoss);
#undef EMBER_TORCH_LOSS

}  // namespace torch::nn
