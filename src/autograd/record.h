// How an op joins the graph: after computing its outputs, it records a Node that saves what the
// backward needs and points at its inputs' gradient edges.
//
//   if (autograd::needs_grad({&a, &b})) {
//     auto node = autograd::record<MulBackward0>({out}, {&a, &b});
//     node->self = SavedTensor(a);  node->other = SavedTensor(b);
//   }
#pragma once

#include <initializer_list>
#include <memory>
#include <sstream>

#include "autograd/autograd_meta.h"
#include "ember/error.h"

namespace ember::autograd {

/// True when grad mode is on and any defined input requires grad.
inline bool needs_grad(std::initializer_list<const Tensor*> inputs) {
  if (!is_grad_enabled()) return false;
  for (const Tensor* t : inputs)
    if (t && t->defined() && t->requires_grad()) return true;
  return false;
}

std::string capture_trace(const std::string& name);

/// Creates node N, connects it to the inputs' gradient edges and makes it the grad_fn of the
/// outputs (in order).
template <class N, class... Args>
std::shared_ptr<N> record(std::initializer_list<Tensor> outputs,
                          std::initializer_list<const Tensor*> inputs, Args&&... args) {
  auto node = std::make_shared<N>(std::forward<Args>(args)...);
  std::vector<Edge> edges;
  edges.reserve(inputs.size());
  for (const Tensor* t : inputs) edges.push_back(t && t->defined() ? gradient_edge(*t) : Edge{});
  node->set_next_functions(std::move(edges));
  node->set_num_outputs(uint32_t(outputs.size()));
  uint32_t i = 0;
  for (const Tensor& out : outputs) set_history(out, node, i++);
  if (is_anomaly_enabled()) node->set_creation_trace(capture_trace(node->name()));
  return node;
}

/// A tensor saved for backward, with the version it had when saved. unpack() raises PyTorch's
/// errors when the graph was already freed or the tensor was modified in place since.
/// Outputs of the saving node itself are kept without their grad_fn (which would be a cycle).
class SavedTensor {
 public:
  SavedTensor() = default;
  explicit SavedTensor(const Tensor& t, bool is_output = false);
  Tensor unpack(const std::shared_ptr<Node>& owner) const;
  void reset() {
    data_ = Tensor();
    hooked_.reset();
    released_ = true;
  }
  bool defined() const { return data_.defined() || hooked_ || released_; }

 private:
  struct Hooked;  // what a saved_tensors_hooks region's pack returned, and its unpack
  Tensor data_;
  std::shared_ptr<const Hooked> hooked_;
  uint32_t version_ = 0;
  bool is_output_ = false;
  bool released_ = false;
  uint32_t output_nr_ = 0;
};

}  // namespace ember::autograd
