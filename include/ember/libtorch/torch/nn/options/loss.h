// LibTorch's options for the losses (layers and functions share them): a reduction among
// torch::kNone, kMean (the default) and kSum (KLDivLoss also kBatchMean), weights and margins:
//   torch::nn::CrossEntropyLoss(torch::nn::CrossEntropyLossOptions().reduction(torch::kSum))
//   F::mse_loss(a, b, torch::kSum)   (some options are made from a reduction alone)
#pragma once

#include <cstdint>
#include <variant>

#include "ember/tensor.h"
#include "torch/arg.h"
#include "torch/enum.h"

namespace torch::nn {

namespace detail {
using reduction_t = std::variant<enumtype::kNone, enumtype::kMean, enumtype::kSum>;
}  // namespace detail

// Options that LibTorch also builds from a reduction alone (`F::l1_loss(a, b, torch::kSum)`).
#define EMBER_TORCH_REDUCTION_CTORS(Options)                                \
  Options() {}                                                              \
  /* implicit */ Options(enumtype::kNone r) : reduction_(r) {} /* NOLINT */ \
  /* implicit */ Options(enumtype::kMean r) : reduction_(r) {} /* NOLINT */ \
  /* implicit */ Options(enumtype::kSum r) : reduction_(r) {}  /* NOLINT */

struct L1LossOptions {
  using reduction_t = detail::reduction_t;
  EMBER_TORCH_REDUCTION_CTORS(L1LossOptions)
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
};

struct MSELossOptions {
  using reduction_t = detail::reduction_t;
  EMBER_TORCH_REDUCTION_CTORS(MSELossOptions)
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
};

struct SmoothL1LossOptions {
  using reduction_t = detail::reduction_t;
  EMBER_TORCH_REDUCTION_CTORS(SmoothL1LossOptions)
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
  TORCH_ARG(double, beta) = 1.0;
};

struct HuberLossOptions {
  using reduction_t = detail::reduction_t;
  EMBER_TORCH_REDUCTION_CTORS(HuberLossOptions)
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
  TORCH_ARG(double, delta) = 1.0;
};

struct KLDivLossOptions {
  using reduction_t =
      std::variant<enumtype::kNone, enumtype::kBatchMean, enumtype::kSum, enumtype::kMean>;
  EMBER_TORCH_REDUCTION_CTORS(KLDivLossOptions)
  /* implicit */ KLDivLossOptions(enumtype::kBatchMean r) : reduction_(r) {}  // NOLINT
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
  TORCH_ARG(bool, log_target) = false;
};
#undef EMBER_TORCH_REDUCTION_CTORS

struct BCELossOptions {
  using reduction_t = detail::reduction_t;
  TORCH_ARG(ember::Tensor, weight) = {};
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
};

struct BCEWithLogitsLossOptions {
  using reduction_t = detail::reduction_t;
  TORCH_ARG(ember::Tensor, weight) = {};
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
  TORCH_ARG(ember::Tensor, pos_weight) = {};
};

struct NLLLossOptions {
  using reduction_t = detail::reduction_t;
  TORCH_ARG(ember::Tensor, weight) = {};
  TORCH_ARG(int64_t, ignore_index) = -100;
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
};

struct CrossEntropyLossOptions {
  using reduction_t = detail::reduction_t;
  TORCH_ARG(ember::Tensor, weight) = {};
  TORCH_ARG(int64_t, ignore_index) = -100;
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
  TORCH_ARG(double, label_smoothing) = 0.0;
};

struct CosineEmbeddingLossOptions {
  using reduction_t = detail::reduction_t;
  TORCH_ARG(double, margin) = 0.0;
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
};

struct MarginRankingLossOptions {
  using reduction_t = detail::reduction_t;
  TORCH_ARG(double, margin) = 0;
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
};

struct TripletMarginLossOptions {
  using reduction_t = detail::reduction_t;
  TORCH_ARG(double, margin) = 1.0;
  TORCH_ARG(double, p) = 2.0;
  TORCH_ARG(double, eps) = 1e-6;
  TORCH_ARG(bool, swap) = false;
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
};

namespace functional {
using L1LossFuncOptions = L1LossOptions;
using MSELossFuncOptions = MSELossOptions;
using SmoothL1LossFuncOptions = SmoothL1LossOptions;
using HuberLossFuncOptions = HuberLossOptions;
using KLDivFuncOptions = KLDivLossOptions;
using BinaryCrossEntropyFuncOptions = BCELossOptions;
using BinaryCrossEntropyWithLogitsFuncOptions = BCEWithLogitsLossOptions;
using NLLLossFuncOptions = NLLLossOptions;
using CrossEntropyFuncOptions = CrossEntropyLossOptions;
using CosineEmbeddingLossFuncOptions = CosineEmbeddingLossOptions;
using MarginRankingLossFuncOptions = MarginRankingLossOptions;
using TripletMarginLossFuncOptions = TripletMarginLossOptions;
}  // namespace functional

}  // namespace torch::nn
