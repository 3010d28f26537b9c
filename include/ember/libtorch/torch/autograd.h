// torch::autograd: backward, grad, the guards, and custom functions as LibTorch spells them —
//   struct MulConstant : public torch::autograd::Function<MulConstant> {
//     static torch::Tensor forward(torch::autograd::AutogradContext* ctx, torch::Tensor x,
//                                  double c) { ctx->saved_data["c"] = c; return x * c; }
//     static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
//                                                    torch::autograd::variable_list g) {
//       return {g[0] * ctx->saved_data["c"].toDouble(), torch::Tensor()};
//     }
//   };
// ember's Function<T, Context> does the work; the layer's context differs from ember's only in
// saved_data, whose values are c10::IValue (toDouble(), toInt(), ...) instead of ember::Value.
#pragma once

#include <string>
#include <unordered_map>

#include "ember/custom_function.h"
#include "torch/types.h"

namespace torch::autograd {

class AutogradContext : public ember::autograd::AutogradContext {
 public:
  /// The node's name, LibTorch's: grad_fn()->name() is "torch::autograd::CppNode<T>".
  static constexpr const char* kNodeNameFormat = "torch::autograd::CppNode<{}>";
  /// Anything else backward needs, as LibTorch's ctx->saved_data["name"] = value.
  std::unordered_map<std::string, c10::IValue> saved_data;
};

/// The base of a custom function T (CRTP), with LibTorch's context.
template <class T>
using Function = ember::autograd::Function<T, AutogradContext>;

using Variable = ember::Tensor;

}  // namespace torch::autograd

namespace torch {
using autograd::Variable;
}  // namespace torch
