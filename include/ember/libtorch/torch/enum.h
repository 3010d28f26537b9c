// LibTorch's enum-valued options: torch::kSum, torch::kReflect, torch::kBilinear, torch::kReLU,
// ... Each is the one value of an empty type in torch::enumtype, and an option that takes a few
// of them holds a c10::variant of those types (L1LossOptions::reduction_t is
// variant<kNone, kMean, kSum>), so a value the option does not take is a compile error.
// ember's own options spell the same choices as strings ("sum", "reflect"); the layer turns one
// into the other with torch::detail::enum_spelling.
#pragma once

#include <string>
#include <type_traits>
#include <variant>

#include "c10/util/variant.h"

// X(LibTorch's name, ember's spelling)
#define EMBER_TORCH_ENUMS(X)             \
  X(Linear, "linear")                    \
  X(Conv1D, "conv1d")                    \
  X(Conv2D, "conv2d")                    \
  X(Conv3D, "conv3d")                    \
  X(ConvTranspose1D, "conv_transpose1d") \
  X(ConvTranspose2D, "conv_transpose2d") \
  X(ConvTranspose3D, "conv_transpose3d") \
  X(Sigmoid, "sigmoid")                  \
  X(Tanh, "tanh")                        \
  X(ReLU, "relu")                        \
  X(GELU, "gelu")                        \
  X(SiLU, "silu")                        \
  X(Mish, "mish")                        \
  X(LeakyReLU, "leaky_relu")             \
  X(FanIn, "fan_in")                     \
  X(FanOut, "fan_out")                   \
  X(Constant, "constant")                \
  X(Reflect, "reflect")                  \
  X(Replicate, "replicate")              \
  X(Circular, "circular")                \
  X(Nearest, "nearest")                  \
  X(Bilinear, "bilinear")                \
  X(Bicubic, "bicubic")                  \
  X(Trilinear, "trilinear")              \
  X(Area, "area")                        \
  X(NearestExact, "nearest-exact")       \
  X(Sum, "sum")                          \
  X(Mean, "mean")                        \
  X(Max, "max")                          \
  X(None, "none")                        \
  X(BatchMean, "batchmean")              \
  X(Zeros, "zeros")                      \
  X(Border, "border")                    \
  X(Reflection, "reflection")            \
  X(RNN_TANH, "RNN_TANH")                \
  X(RNN_RELU, "RNN_RELU")                \
  X(LSTM, "LSTM")                        \
  X(GRU, "GRU")                          \
  X(Valid, "valid")                      \
  X(Same, "same")

namespace torch {
namespace enumtype {

// A user-provided constructor, so `const enumtype::kSum x;` is valid (as with LibTorch's).
#define EMBER_TORCH_ENUM_TYPE(Name, spelling)               \
  struct k##Name {                                          \
    constexpr k##Name() {}                                  \
    static constexpr const char* torch_name = "k" #Name;    \
    static constexpr const char* ember_spelling = spelling; \
  };
EMBER_TORCH_ENUMS(EMBER_TORCH_ENUM_TYPE)
#undef EMBER_TORCH_ENUM_TYPE

/// "kSum", "kReflect", ...: the name of the value a variant option holds.
template <class Variant>
std::string get_enum_name(const Variant& value) {
  return std::visit(
      [](const auto& kind) -> std::string { return std::decay_t<decltype(kind)>::torch_name; },
      value);
}

}  // namespace enumtype

#define EMBER_TORCH_ENUM_VALUE(Name, spelling) inline constexpr enumtype::k##Name k##Name{};
EMBER_TORCH_ENUMS(EMBER_TORCH_ENUM_VALUE)
#undef EMBER_TORCH_ENUM_VALUE

namespace detail {

/// ember's string for the value a variant option holds: kSum -> "sum", kFanOut -> "fan_out".
template <class... Kinds>
std::string enum_spelling(const std::variant<Kinds...>& value) {
  return std::visit(
      [](const auto& kind) -> std::string { return std::decay_t<decltype(kind)>::ember_spelling; },
      value);
}

}  // namespace detail
}  // namespace torch
