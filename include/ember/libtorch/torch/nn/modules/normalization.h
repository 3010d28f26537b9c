// torch::nn::LayerNorm and GroupNorm over ember's, from LibTorch's options or positional forms:
//   torch::nn::LayerNorm(std::vector<int64_t>{16})
//   torch::nn::LayerNorm(torch::nn::LayerNormOptions({4, 5}).eps(1e-6))   torch::nn::GroupNorm(2,
//   8)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/nn/layers/normalization.h"
#include "torch/nn/modules/utils.h"
#include "torch/nn/options/normalization.h"

namespace torch::nn {

class LayerNormImpl : public ember::nn::LayerNormImpl {
 public:
  explicit LayerNormImpl(std::vector<int64_t> normalized_shape)
      : LayerNormImpl(LayerNormOptions(std::move(normalized_shape))) {}
  explicit LayerNormImpl(const LayerNormOptions& options_)
      : ember::nn::LayerNormImpl(
            options_.normalized_shape(),
            {.eps = options_.eps(), .elementwise_affine = options_.elementwise_affine()}),
        options(options_) {}
  EMBER_TORCH_LAYER_NAME(LayerNorm)
  std::string extra_repr() const override;
  LayerNormOptions options;
};
TORCH_MODULE(LayerNorm);

class GroupNormImpl : public ember::nn::GroupNormImpl {
 public:
  GroupNormImpl(int64_t num_groups, int64_t num_channels)
      : GroupNormImpl(GroupNormOptions(num_groups, num_channels)) {}
  explicit GroupNormImpl(const GroupNormOptions& options_)
      : ember::nn::GroupNormImpl(options_.num_groups(), options_.num_channels(),
                                 {.eps = options_.eps(), .affine = options_.affine()}),
        options(options_) {}
  EMBER_TORCH_LAYER_NAME(GroupNorm)
  std::string extra_repr() const override;
  GroupNormOptions options;
};
TORCH_MODULE(GroupNorm);

}  // namespace torch::nn
