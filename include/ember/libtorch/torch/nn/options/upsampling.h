// LibTorch's options for Upsample and F::interpolate:
//   torch::nn::UpsampleOptions().scale_factor(std::vector<double>{2, 2}).mode(torch::kBilinear)
//   F::InterpolateFuncOptions().size(std::vector<int64_t>{8, 8}).mode(torch::kNearest)
#pragma once

#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "torch/arg.h"
#include "torch/enum.h"

namespace torch::nn {

struct UpsampleOptions {
  using mode_t = std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear,
                              enumtype::kBicubic, enumtype::kTrilinear>;
  TORCH_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  TORCH_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  TORCH_ARG(mode_t, mode) = torch::kNearest;
  TORCH_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

namespace functional {
struct InterpolateFuncOptions {
  using mode_t =
      std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear, enumtype::kBicubic,
                   enumtype::kTrilinear, enumtype::kArea, enumtype::kNearestExact>;
  TORCH_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  TORCH_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  TORCH_ARG(mode_t, mode) = torch::kNearest;
  TORCH_ARG(std::optional<bool>, align_corners) = std::nullopt;
  TORCH_ARG(std::optional<bool>, recompute_scale_factor) = std::nullopt;
  TORCH_ARG(bool, antialias) = false;  // not in ember: F::interpolate refuses true
};
}  // namespace functional

}  // namespace torch::nn
