// Custom autograd functions in C++ (LibTorch's torch::autograd::Function<T>): a class with a
// static forward and backward becomes one node of the graph.
//
//   struct MulConstant : autograd::Function<MulConstant> {
//     static Tensor forward(autograd::AutogradContext* ctx, Tensor x, double c) {
//       ctx->saved_data["c"] = c;
//       return x * c;
//     }
//     static autograd::variable_list backward(autograd::AutogradContext* ctx,
//                                             autograd::variable_list grads) {
//       return {grads[0] * ctx->saved_data["c"].to_double(), Tensor()};
//     }
//   };
//   Tensor y = MulConstant::apply(x, 5.5);
//
// forward runs with grad mode off and returns a Tensor or a variable_list. backward gets one
// gradient per forward output (zeros where none flowed, unless set_materialize_grads(false)
// leaves them undefined) and returns one per forward argument, a variable_list argument counting
// as one per tensor in it; the entries of non-tensor arguments must be undefined. The node is
// named after T (its demangled class name), as LibTorch's.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/autograd.h"
#include "ember/tensor.h"
#include "ember/value.h"

namespace ember::autograd {

using variable_list = std::vector<Tensor>;  // LibTorch's name for the gradients' lists
using tensor_list = std::vector<Tensor>;

namespace detail {
class CustomFunctionCall;
}

/// What forward leaves for backward.
class AutogradContext {
 public:
  AutogradContext() = default;
  AutogradContext(const AutogradContext&) = delete;
  AutogradContext& operator=(const AutogradContext&) = delete;
  virtual ~AutogradContext() = default;

  /// Tensors backward reads through get_saved_variables() (inputs or outputs of forward; an
  /// undefined tensor stays undefined). Each is checked against in-place changes, as the ops'.
  void save_for_backward(variable_list to_save);
  /// In backward: what save_for_backward kept. Raises PyTorch's error after the graph was freed.
  variable_list get_saved_variables() const;
  /// Inputs that forward modified in place (and returns): their history moves to this node.
  void mark_dirty(const variable_list& inputs);
  /// Outputs that get no gradient (indices, masks): they do not require grad.
  void mark_non_differentiable(const variable_list& outputs);
  /// false: gradients that did not flow reach backward undefined instead of as zeros.
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  /// Whether the i-th tensor input of forward needs a gradient.
  bool needs_input_grad(size_t tensor_index) const;

  /// Anything else backward needs (numbers, strings, tensors that need no version check).
  std::unordered_map<std::string, Value> saved_data;

 private:
  friend class detail::CustomFunctionCall;
  variable_list to_save_;   // until forward returns; then the node owns them
  variable_list unpacked_;  // during backward: the node's saved tensors, unpacked
  bool recorded_ = false;   // the node exists (forward ran with grad on an input needing it)
  variable_list dirty_;
  variable_list non_differentiable_;
  std::vector<bool> needs_input_grad_;
  bool materialize_grads_ = true;
};

namespace detail {

/// The non-template half of Function<T>::apply: constructed before forward with the tensor
/// inputs (grad mode is off while it lives, until finish), finish() makes the node.
class CustomFunctionCall {
 public:
  using Backward = std::function<variable_list(AutogradContext*, variable_list)>;
  /// The node is named `name_format` with the function's demangled class name at "{}".
  CustomFunctionCall(const std::type_info& function, std::string_view name_format,
                     const variable_list& inputs, std::shared_ptr<AutogradContext> ctx);
  ~CustomFunctionCall();
  CustomFunctionCall(const CustomFunctionCall&) = delete;
  CustomFunctionCall& operator=(const CustomFunctionCall&) = delete;

  /// Connects forward's outputs to a new node whose backward calls `backward` and maps its
  /// `num_arguments` gradients (one per flattened forward argument) to the tensor inputs at
  /// `tensor_positions`. Returns the outputs as the caller sees them (an input returned as is
  /// becomes an alias with its own history, unless marked dirty).
  variable_list finish(variable_list outputs, Backward backward, size_t num_arguments,
                       std::vector<size_t> tensor_positions);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The flattened arguments of apply: a Tensor is one, a variable_list one per element, anything
// else one that is not a tensor.
template <class A>
void collect_argument(const A& arg, variable_list& inputs, std::vector<size_t>& positions,
                      size_t& position) {
  using D = std::decay_t<A>;
  if constexpr (std::is_same_v<D, Tensor>) {
    inputs.push_back(arg);
    positions.push_back(position++);
  } else if constexpr (std::is_same_v<D, variable_list>) {
    for (const Tensor& t : arg) {
      inputs.push_back(t);
      positions.push_back(position++);
    }
  } else {
    ++position;
  }
}

}  // namespace detail

/// The base of a custom function T (CRTP): T::forward(Context*, args...) and
/// T::backward(Context*, variable_list). Context is AutogradContext or a class derived from it;
/// the node is named after T, or as Context::kNodeNameFormat says ("{}" standing for T's name)
/// when it has one.
template <class T, class Context = AutogradContext>
struct Function {
  template <class... Args>
  static auto apply(Args&&... args) {
    static_assert(std::is_base_of_v<AutogradContext, Context>,
                  "Function<T, Context>: Context must derive from autograd::AutogradContext");
    auto ctx = std::make_shared<Context>();
    variable_list inputs;
    std::vector<size_t> positions;
    size_t count = 0;
    (detail::collect_argument(args, inputs, positions, count), ...);
    std::string_view name_format = "{}";
    if constexpr (requires { Context::kNodeNameFormat; }) name_format = Context::kNodeNameFormat;
    detail::CustomFunctionCall call(typeid(T), name_format, inputs, ctx);
    auto result = T::forward(ctx.get(), std::forward<Args>(args)...);
    using Result = decltype(result);
    static_assert(std::is_same_v<Result, Tensor> || std::is_same_v<Result, variable_list>,
                  "Function<T>: T::forward must return a Tensor or a variable_list");
    variable_list outputs;
    if constexpr (std::is_same_v<Result, Tensor>)
      outputs.push_back(std::move(result));
    else
      outputs = std::move(result);
    outputs = call.finish(
        std::move(outputs),
        [](AutogradContext* c, variable_list grads) {
          return T::backward(static_cast<Context*>(c), std::move(grads));
        },
        count, std::move(positions));
    if constexpr (std::is_same_v<Result, Tensor>)
      return outputs[0];
    else
      return outputs;
  }
};

}  // namespace ember::autograd
