// FORWARD_HAS_DEFAULT_ARGS({index, AnyValue(default)}, ...): declares, inside a module class,
// the default values of its forward's trailing arguments, so AnyModule (and Sequential) may
// call that forward with fewer arguments, as C++ can't see default arguments through a member
// function pointer:
//   struct MImpl : torch::nn::Module {
//     torch::Tensor forward(torch::Tensor x, int64_t k = 2) { ... }
//     FORWARD_HAS_DEFAULT_ARGS({1, torch::nn::AnyValue(int64_t(2))})
//   };
#pragma once

#include <utility>
#include <vector>

#include "torch/nn/modules/container/any_value.h"

namespace torch::nn::detail {
/// Reads FORWARD_HAS_DEFAULT_ARGS's list (a friend, so the macro may sit in a protected part).
struct ForwardDefaultArgs {
  template <class M>
  static constexpr bool declared() {
    return requires { M::_ember_forward_default_args(); };
  }
  template <class M>
  static std::vector<std::pair<unsigned, AnyValue>> of() {
    return M::_ember_forward_default_args();
  }
};
}  // namespace torch::nn::detail

#define FORWARD_HAS_DEFAULT_ARGS(...)                                                            \
  friend struct ::torch::nn::detail::ForwardDefaultArgs;                                         \
  static std::vector<std::pair<unsigned, ::torch::nn::AnyValue>> _ember_forward_default_args() { \
    return {__VA_ARGS__};                                                                        \
  }
