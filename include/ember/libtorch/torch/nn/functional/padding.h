// F::pad with LibTorch's options:
//   F::pad(x, F::PadFuncOptions({1, 1}).mode(torch::kReflect))
#pragma once

#include <optional>
#include <variant>

#include "ember/error.h"
#include "ember/nn/functional/conv.h"
#include "ember/tensor.h"
#include "torch/enum.h"
#include "torch/nn/options/padding.h"

namespace torch::nn::functional {

/// The value is the constant mode's; the other modes take none (it must stay 0).
inline ember::Tensor pad(const ember::Tensor& input, const PadFuncOptions& options) {
  const bool constant = std::holds_alternative<enumtype::kConstant>(options.mode());
  if (!constant && options.value() != 0)
    ember::fail("pad", "Padding mode \"", enumtype::get_enum_name(options.mode()),
                "\" doesn't take in value argument");
  return ember::nn::functional::pad(
      input, options.pad(),
      {.mode = torch::detail::enum_spelling(options.mode()),
       .value = constant ? std::optional<double>(options.value()) : std::nullopt});
}

}  // namespace torch::nn::functional
