// How an op joins the graph: a Recorder decides at the op's entry whether anything needs a
// gradient, keeps the op's inner steps out of the graph, and after the forward records one node
// whose backward is a lambda written next to the forward:
//
//   Tensor mul(const Tensor& a, const Tensor& b) {
//     autograd::Recorder rec("mul", {&a, &b});
//     Tensor out = ...kernel...;
//     if (rec) rec.record("MulBackward0", {out}, {a, b}, [](const Grads& g, const Saved& s) {
//       return TensorList{g[0] * s[1], g[0] * s[0]};   // engine sums broadcast grads (sum_to)
//     });
//     return out;
//   }
//
// Backward formulas are written in differentiable ember ops, so with create_graph they record
// their own graph (double backward). They return one gradient per input (undefined = none),
// in any shape the input broadcasts to: the engine reduces and casts (validate_outputs).
#pragma once

#include <array>
#include <functional>
#include <initializer_list>
#include <optional>
#include <vector>

#include "autograd/saved_tensor.h"
#include "core/op_entry.h"
#include "ember/autograd.h"

namespace ember::autograd {

using TensorList = std::vector<Tensor>;
using Grads = TensorList;  // gradients of the forward outputs (undefined where none flowed)
using Saved = TensorList;  // the saved tensors, unpacked in the order they were given
using BackwardFn = std::function<TensorList(const Grads&, const Saved&)>;

/// A node whose backward is a lambda; what it saves is checked against in-place changes.
class FunctionNode final : public Node {
 public:
  FunctionNode(const char* name, BackwardFn fn) : name_(name), fn_(std::move(fn)) {}
  std::string name() const override { return name_; }
  TensorList apply(TensorList&& grads) override;
  void release_variables() override;
  std::vector<SavedTensor> saved;

 private:
  const char* name_;
  BackwardFn fn_;
};

/// Records one op. Constructed at the op's entry: when grad mode is on and an input requires
/// grad it is active (`if (rec)`), and grad mode is off until record() so that the op's inner
/// steps (casts, expands, helper ops) add nothing to the graph.
class Recorder {
 public:
  Recorder(const char* op, std::initializer_list<const Tensor*> inputs);
  Recorder(const char* op, const std::vector<Tensor>& inputs);
  /// In-place ops (`self` is written; it is input 0): PyTorch refuses a leaf that requires
  /// grad, and an inference tensor, here.
  struct InPlace {};
  Recorder(InPlace, const char* op, const Tensor& self, std::initializer_list<const Tensor*> others);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  explicit operator bool() const { return active_; }

  /// The op's entry scope (core/op_entry.h): true when autocast cast the op's inputs; the op then
  /// returns itself called on cast(i) (Note [Autocast]) and this Recorder records nothing.
  bool autocast() {
    if (!scope_.autocast()) [[likely]]
      return false;
    if (active_) set_grad_enabled(previous_grad_mode_);
    active_ = false;
    return true;
  }
  const Tensor& cast(size_t i) const { return scope_.cast(i); }

  /// Makes a node, connects it to the inputs given at construction and makes it the grad_fn of
  /// `outputs` (integer/bool outputs stay outside the graph). `saved` are inputs (or other
  /// tensors) the backward needs; `saved_outputs` are outputs of this op it needs (kept without
  /// their grad_fn, which would be a cycle). Returns the node.
  std::shared_ptr<FunctionNode> record(const char* name, std::initializer_list<Tensor> outputs,
                                       std::initializer_list<Tensor> saved, BackwardFn fn,
                                       std::initializer_list<Tensor> saved_outputs = {});
  std::shared_ptr<FunctionNode> record(const char* name, const std::vector<Tensor>& outputs,
                                       std::initializer_list<Tensor> saved, BackwardFn fn,
                                       std::initializer_list<Tensor> saved_outputs = {});

 private:
  void begin();
  std::shared_ptr<FunctionNode> record_outputs(const char* name, const Tensor* outputs,
                                               size_t num_outputs,
                                               std::initializer_list<Tensor> saved, BackwardFn fn,
                                               std::initializer_list<Tensor> saved_outputs);
  void rebase_view_history(const std::shared_ptr<FunctionNode>& fn);
  OpScope scope_;  // first: the op is entered (observed, device-checked) before anything else
  bool active_ = false;
  Tensor view_base_;  // in-place through a view: the base whose history is rewritten
  bool previous_grad_mode_ = true;
  // The inputs' handles (not pointers: an input may be a temporary of the caller), inline for
  // the usual arities so that recording does not allocate for them.
  static constexpr size_t kInlineInputs = 4;
  std::array<Tensor, kInlineInputs> inline_inputs_;
  std::vector<Tensor> more_inputs_;
  size_t num_inputs_ = 0;
  void add_input(const Tensor& t);
  const Tensor& input(size_t i) const {
    return i < kInlineInputs ? inline_inputs_[i] : more_inputs_[i - kInlineInputs];
  }
};

/// PyTorch's original_self: the value `self` has before an in-place op overwrites it, for a
/// backward formula that needs it (undefined when `needed` is false or grad mode is off). Call
/// it before constructing the op's Recorder: taken with grad mode on, the copy keeps self's
/// history, so double backward reaches it.
inline Tensor original_self(const Tensor& self, bool needed) {
  return needed && is_grad_enabled() ? self.clone() : Tensor();
}

/// PyTorch's validate_outputs: sums each gradient in a broadcast shape back to its input's
/// shape and casts it to the input's dtype (from node.input_meta()); throws on other shapes.
void validate_outputs(const Node& node, std::vector<Tensor>& grads);

/// Sums `g` down to `shape` (the reverse of broadcasting `shape` up to g's shape).
Tensor sum_to(const Tensor& g, IntArrayRef shape);
/// True when `shape` broadcasts to `target`.
bool is_expandable_to(IntArrayRef shape, IntArrayRef target);

}  // namespace ember::autograd
