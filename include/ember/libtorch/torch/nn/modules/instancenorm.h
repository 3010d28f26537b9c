// torch::nn::InstanceNorm1d/2d/3d over ember's, from a feature count or LibTorch's options:
//   torch::nn::InstanceNorm2d(torch::nn::InstanceNorm2dOptions(64).affine(true))
#pragma once

#include <string>

#include "ember/nn/layers/normalization.h"
#include "torch/nn/modules/utils.h"
#include "torch/nn/options/instancenorm.h"

namespace torch::nn {

namespace detail {
/// "64, eps=1e-05, momentum=0.1, affine=false, track_running_stats=false".
std::string instance_norm_description(const InstanceNormOptions& options);
}  // namespace detail

#define EMBER_TORCH_INSTANCE_NORM(D)                                                               \
  class InstanceNorm##D##dImpl : public ember::nn::InstanceNorm##D##dImpl {                        \
   public:                                                                                         \
    explicit InstanceNorm##D##dImpl(const InstanceNorm##D##dOptions& options_)                     \
        : ember::nn::InstanceNorm##D##dImpl(                                                       \
              options_.num_features(), {.eps = options_.eps(),                                     \
                                        .momentum = options_.momentum(),                           \
                                        .affine = options_.affine(),                               \
                                        .track_running_stats = options_.track_running_stats()}),   \
          options(options_) {}                                                                     \
    EMBER_TORCH_LAYER_NAME(InstanceNorm##D##d)                                                     \
    std::string extra_repr() const override { return detail::instance_norm_description(options); } \
    InstanceNorm##D##dOptions options;                                                             \
  };                                                                                               \
  TORCH_MODULE(InstanceNorm##D##d)
EMBER_TORCH_INSTANCE_NORM(1);
EMBER_TORCH_INSTANCE_NORM(2);
EMBER_TORCH_INSTANCE_NORM(3);
#undef EMBER_TORCH_INSTANCE_NORM

}  // namespace torch::nn
