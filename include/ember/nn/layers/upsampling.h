// Upsample (torch.nn.Upsample): F::interpolate as a layer, with PyTorch's options and repr.
//   nn::Upsample up({.scale_factor = 2, .mode = "bilinear", .align_corners = false});
#pragma once

#include <optional>
#include <string>

#include "ember/nn/functional/conv.h"
#include "ember/nn/module.h"

namespace ember::nn {

/// Exactly one of size and scale_factor; modes as F::interpolate.
struct UpsampleOptions {
  functional::IntOrList size = {};
  functional::DoubleOrList scale_factor = {};
  std::string mode = "nearest";
  std::optional<bool> align_corners = {};
  std::optional<bool> recompute_scale_factor = {};
};

/// Resamples the spatial dims of (N, C, L) or (N, C, H, W).
class UpsampleImpl : public Module {
 public:
  explicit UpsampleImpl(UpsampleOptions options = {}) : options(std::move(options)) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  UpsampleOptions options;
};
class Upsample : public ModuleHolder<UpsampleImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  Upsample(UpsampleOptions options = {})  // NOLINT
      : ModuleHolder(std::make_shared<UpsampleImpl>(std::move(options))) {}
};

}  // namespace ember::nn
