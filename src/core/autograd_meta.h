// The autograd slot of a TensorImpl, allocated only for tensors that take part in autograd. Core
// owns it (TensorImpl makes and destroys it); src/autograd fills it (autograd/autograd_meta.h).
// Note [Gradient slots]: a tensor's .grad lives in a shared slot so that the retain_grad hook on
// its grad_fn can fill it without the node referencing the tensor (which would be a cycle:
// tensor -> grad_fn -> tensor).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "ember/tensor.h"

namespace ember {

namespace autograd {
class Node;
}  // namespace autograd

struct AutogradMeta {
  /// The gradient slot, created when first needed: most results of a forward pass never get
  /// one, and recording must stay cheap.
  const std::shared_ptr<Tensor>& grad_slot() {
    if (!grad) grad = std::make_shared<Tensor>();
    return grad;
  }
  bool requires_grad = false;               // leaves: set by the user
  std::shared_ptr<autograd::Node> grad_fn;  // non-leaves: the producing node
  uint32_t output_nr = 0;                   // which output of grad_fn
  std::shared_ptr<Tensor> grad;  // Note [Gradient slots]; made on first use (grad_slot())
  std::weak_ptr<autograd::Node> grad_accumulator;  // leaves: their AccumulateGrad node
  uint64_t retain_grad_hook = 0;                   // non-zero while retain_grad() is active
  // Leaves: hooks run on the incoming gradient before accumulation, and after it.
  std::vector<std::pair<uint64_t, std::function<Tensor(const Tensor&)>>> leaf_hooks;
  std::vector<std::pair<uint64_t, std::function<void(const Tensor&)>>> post_accumulate_hooks;
};

}  // namespace ember
