// torch::nn::Upsample over ember's, from LibTorch's options:
//   torch::nn::Upsample(torch::nn::UpsampleOptions().scale_factor(std::vector<double>{2})
//                           .mode(torch::kNearest))
#pragma once

#include <string>

#include "ember/nn/layers/upsampling.h"
#include "torch/nn/modules/utils.h"
#include "torch/nn/options/upsampling.h"

namespace torch::nn {

namespace detail {
ember::nn::UpsampleOptions upsample_options(const UpsampleOptions& options);
/// "scale_factor=[2], mode=kNearest".
std::string upsample_description(const UpsampleOptions& options);
}  // namespace detail

class UpsampleImpl : public ember::nn::UpsampleImpl {
 public:
  explicit UpsampleImpl(const UpsampleOptions& options_ = {})
      : ember::nn::UpsampleImpl(detail::upsample_options(options_)), options(options_) {}
  EMBER_TORCH_LAYER_NAME(Upsample)
  std::string extra_repr() const override { return detail::upsample_description(options); }
  UpsampleOptions options;
};
TORCH_MODULE(Upsample);

}  // namespace torch::nn
