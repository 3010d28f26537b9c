// Node bookkeeping (sequence numbers, gradient pre-hooks), the AccumulateGrad node that adds
// gradients into a leaf's .grad, and how tensors are attached to the graph.
#include <atomic>

#include "autograd/accumulate_grad.h"
#include "autograd/autograd_meta.h"
#include "core/tensor_impl_mutators.h"
#include "ember/math.h"

namespace ember::autograd {
namespace {
std::atomic<uint64_t> g_sequence{0};
std::atomic<uint64_t> g_hook_id{0};
}  // namespace

uint64_t next_hook_id() { return ++g_hook_id; }

Node::Node() : sequence_nr_(g_sequence.fetch_add(1, std::memory_order_relaxed)) {}
Node::~Node() = default;

uint64_t Node::add_pre_hook(uint32_t output_nr, GradHook hook) {
  const uint64_t id = next_hook_id();
  pre_hooks_.push_back({id, output_nr, std::move(hook)});
  return id;
}

bool Node::remove_pre_hook(uint64_t id) {
  for (auto it = pre_hooks_.begin(); it != pre_hooks_.end(); ++it) {
    if (it->id == id) {
      pre_hooks_.erase(it);
      return true;
    }
  }
  return false;
}

void Node::run_pre_hooks(std::vector<Tensor>& grads) const {
  for (const PreHook& h : pre_hooks_) {
    Tensor& g = grads[h.output_nr];
    if (!g.defined()) continue;
    Tensor replaced = h.fn(g);
    if (replaced.defined()) g = std::move(replaced);
  }
}

AccumulateGrad::AccumulateGrad(const Tensor& leaf) : leaf_(leaf.impl_ptr()) {}

std::vector<Tensor> AccumulateGrad::apply(std::vector<Tensor>&& grads) {
  Tensor g = std::move(grads[0]);
  if (!g.defined()) return {};
  const Tensor leaf(leaf_);
  AutogradMeta& meta = TensorImplMutators::autograd_mut(*leaf_);
  for (const auto& [id, hook] : meta.leaf_hooks) {
    Tensor replaced = hook(g);
    if (replaced.defined()) g = std::move(replaced);
  }
  Tensor& slot = *meta.grad_slot();
  if (!slot.defined()) {
    // Keep the incoming buffer when nothing else holds it and it is dense; otherwise copy, so a
    // later in-place accumulation cannot write into a tensor shared with another gradient, nor
    // into a broadcast view (sum's backward expands one value: a second backward adds into it).
    const bool owned =
        g.impl_ptr().use_count() == 1 && g.storage().use_count() == 1 && g.is_contiguous();
    slot = is_grad_enabled() || owned ? g : g.clone();
  } else if (is_grad_enabled()) {
    slot = slot + g;  // create_graph: the accumulation itself is differentiable
  } else {
    slot.add_(g);
  }
  for (const auto& [id, hook] : meta.post_accumulate_hooks) hook(leaf);
  return {};
}

Edge gradient_edge(const Tensor& t) {
  refresh_view_history(t);
  const AutogradMeta* meta = t.impl()->autograd();
  if (!meta) return {};
  if (meta->grad_fn) return {meta->grad_fn, meta->output_nr};
  if (!meta->requires_grad) return {};
  AutogradMeta& m = TensorImplMutators::autograd_mut(*t.impl());
  std::shared_ptr<Node> acc = m.grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t);
    m.grad_accumulator = acc;
  }
  return {acc, 0};
}

void set_history(const Tensor& output, const std::shared_ptr<Node>& node, uint32_t output_nr) {
  AutogradMeta& meta = TensorImplMutators::autograd_mut(*output.impl());
  meta.grad_fn = node;
  meta.output_nr = output_nr;
  meta.requires_grad = false;  // a non-leaf's requires_grad comes from having a grad_fn
  if (output.impl()->view_base()) TensorImplMutators::mark_view_history_current(*output.impl());
}

}  // namespace ember::autograd
