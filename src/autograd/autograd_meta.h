// The autograd slot of a TensorImpl, allocated only for tensors that take part in autograd.
// Note [Gradient slots]: a tensor's .grad lives in a shared slot so that the retain_grad hook on
// its grad_fn can fill it without the node referencing the tensor (which would be a cycle:
// tensor -> grad_fn -> tensor).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "ember/autograd.h"
#include "ember/tensor.h"

namespace ember {

struct AutogradMeta {
  /// The gradient slot, created when first needed: most results of a forward pass never get
  /// one, and recording must stay cheap.
  const std::shared_ptr<Tensor>& grad_slot() {
    if (!grad) grad = std::make_shared<Tensor>();
    return grad;
  }
  bool requires_grad = false;                    // leaves: set by the user
  std::shared_ptr<autograd::Node> grad_fn;       // non-leaves: the producing node
  uint32_t output_nr = 0;                        // which output of grad_fn
  std::shared_ptr<Tensor> grad;  // Note [Gradient slots]; made on first use (grad_slot())
  std::weak_ptr<autograd::Node> grad_accumulator;  // leaves: their AccumulateGrad node
  uint64_t retain_grad_hook = 0;                 // non-zero while retain_grad() is active
  // Leaves: hooks run on the incoming gradient before accumulation, and after it.
  std::vector<std::pair<uint64_t, std::function<Tensor(const Tensor&)>>> leaf_hooks;
  std::vector<std::pair<uint64_t, std::function<void(const Tensor&)>>> post_accumulate_hooks;
};

namespace autograd {

/// The edge a tensor's gradient flows into: (grad_fn, output_nr) for results, the
/// AccumulateGrad node for leaves that require grad, an invalid edge otherwise.
Edge gradient_edge(const Tensor& t);

/// Marks `output` as output `output_nr` of `node` (requires_grad follows).
void set_history(const Tensor& output, const std::shared_ptr<Node>& node, uint32_t output_nr);

/// A view whose base was written in place since its history was set gets a fresh history, an
/// as_strided of the base as it is now (Note [In-place on views]); everything that reads a
/// tensor's history calls this first.
void regenerate_view_history(const Tensor& view);
inline void refresh_view_history(const Tensor& t) {
  const TensorImpl* impl = t.impl();
  if (impl->view_base() && impl->view_history_stale()) regenerate_view_history(t);
}

/// A fresh id for hooks (unique per process).
uint64_t next_hook_id();

}  // namespace autograd
}  // namespace ember
