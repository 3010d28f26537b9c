// torch::nn::BatchNorm1d and BatchNorm2d over ember's, from a feature count or LibTorch's
// options:
//   torch::nn::BatchNorm2d(64)
//   torch::nn::BatchNorm1d(torch::nn::BatchNorm1dOptions(8).momentum(0.01))
#pragma once

#include <string>

#include "ember/nn/layers/normalization.h"
#include "torch/nn/modules/utils.h"
#include "torch/nn/options/batchnorm.h"

namespace torch::nn {

namespace detail {
ember::nn::BatchNormOptions batch_norm_options(const BatchNormOptions& options);
/// "64, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true".
std::string batch_norm_description(const BatchNormOptions& options);
}  // namespace detail

#define EMBER_TORCH_BATCH_NORM(D)                                                               \
  class BatchNorm##D##dImpl : public ember::nn::BatchNorm##D##dImpl {                           \
   public:                                                                                      \
    explicit BatchNorm##D##dImpl(const BatchNorm##D##dOptions& options_)                        \
        : ember::nn::BatchNorm##D                                                               \
          ##dImpl(options_.num_features(), detail::batch_norm_options(options_)),               \
          options(options_) {}                                                                  \
    EMBER_TORCH_LAYER_NAME(BatchNorm##D##d)                                                     \
    std::string extra_repr() const override { return detail::batch_norm_description(options); } \
    BatchNorm##D##dOptions options;                                                             \
  };                                                                                            \
  TORCH_MODULE(BatchNorm##D##d)
EMBER_TORCH_BATCH_NORM(1);
EMBER_TORCH_BATCH_NORM(2);
#undef EMBER_TORCH_BATCH_NORM

}  // namespace torch::nn
