// LibTorch's F::pad options: the amounts ({left, right} of the last dim, then the one before,
// ...), a mode and the constant's value:
//   F::pad(x, F::PadFuncOptions({1, 1, 2, 0}).mode(torch::kReflect))
#pragma once

#include <cstdint>
#include <utility>
#include <variant>
#include <vector>

#include "torch/arg.h"
#include "torch/enum.h"

namespace torch::nn::functional {

struct PadFuncOptions {
  using mode_t = std::variant<enumtype::kConstant, enumtype::kReflect, enumtype::kReplicate,
                              enumtype::kCircular>;
  /* implicit */ PadFuncOptions(std::vector<int64_t> pad) : pad_(std::move(pad)) {}  // NOLINT
  TORCH_ARG(std::vector<int64_t>, pad);
  TORCH_ARG(mode_t, mode) = torch::kConstant;
  TORCH_ARG(double, value) = 0;
};

}  // namespace torch::nn::functional
