// The autograd methods of Tensor: requires_grad, backward, grad slots, grad_fn, retain_grad,
// hooks.
#include "autograd/autograd_meta.h"
#include "core/tensor_impl_mutators.h"
#include "ember/autograd.h"
#include "ember/math.h"

namespace ember {

void Tensor::backward() const { backward(BackwardOptions{}); }

void Tensor::backward(const BackwardOptions& o) const {
  const std::vector<Tensor> grads =
      o.gradient.defined() ? std::vector<Tensor>{o.gradient} : std::vector<Tensor>{};
  autograd::backward({*this}, grads, o.retain_graph, o.create_graph);
}

const Tensor& Tensor::grad() const {
  static const Tensor undefined;
  const AutogradMeta* meta = impl_->autograd();
  return meta && meta->grad ? *meta->grad : undefined;
}

Tensor& Tensor::mutable_grad() const {
  return *TensorImplMutators::autograd_mut(*impl_).grad_slot();
}

std::shared_ptr<autograd::Node> Tensor::grad_fn() const {
  autograd::refresh_view_history(*this);
  const AutogradMeta* meta = impl_->autograd();
  return meta ? meta->grad_fn : nullptr;
}

bool Tensor::requires_grad() const {
  autograd::refresh_view_history(*this);
  const AutogradMeta* meta = impl_->autograd();
  return meta && (meta->requires_grad || meta->grad_fn);
}

Tensor& Tensor::requires_grad_(bool requires_grad) const {
  EMBER_CHECK(!(requires_grad && is_inference() && !is_inference_mode_enabled()), "requires_grad_",
              "Setting requires_grad=True on inference tensor outside InferenceMode is not "
              "allowed.");
  EMBER_CHECK(!requires_grad || is_floating_point(), "requires_grad_",
              "only Tensors of floating point dtype can require gradients, got ", dtype());
  EMBER_CHECK(requires_grad || is_leaf(), "requires_grad_",
              "you can only change requires_grad flags of leaf variables. If you want to use a "
              "computed variable in a subgraph that doesn't require differentiation use "
              "var_no_grad = var.detach().");
  if (requires_grad || impl_->autograd())
    TensorImplMutators::autograd_mut(*impl_).requires_grad = requires_grad;
  return mut();
}

const Tensor& Tensor::set_requires_grad(bool requires_grad) const {
  if (is_leaf()) requires_grad_(requires_grad);  // through the const in-place forwarder
  return *this;
}

bool Tensor::is_leaf() const { return grad_fn() == nullptr; }

uint32_t Tensor::output_nr() const {
  autograd::refresh_view_history(*this);
  const AutogradMeta* meta = impl_->autograd();
  return meta ? meta->output_nr : 0;
}

Tensor& Tensor::retain_grad() const {
  EMBER_CHECK(requires_grad(), "retain_grad",
              "can't retain_grad on Tensor that has requires_grad=False");
  if (is_leaf()) return mut();  // leaves keep their gradient anyway
  AutogradMeta& meta = TensorImplMutators::autograd_mut(*impl_);
  if (meta.retain_grad_hook) return mut();
  // The hook holds the gradient slot, not the tensor (Note [Gradient slots]).
  std::shared_ptr<Tensor> slot = meta.grad_slot();
  meta.retain_grad_hook = meta.grad_fn->add_pre_hook(meta.output_nr, [slot](const Tensor& g) {
    *slot = slot->defined() ? *slot + g : g.clone();
    return Tensor();
  });
  return mut();
}

bool Tensor::retains_grad() const {
  const AutogradMeta* meta = impl_->autograd();
  return meta && meta->retain_grad_hook != 0;
}

Tensor& Tensor::detach_() const {
  if (AutogradMeta* meta = impl_->autograd()) {
    if (meta->grad_fn && meta->retain_grad_hook) meta->grad_fn->remove_pre_hook(meta->retain_grad_hook);
    meta->grad_fn.reset();
    meta->output_nr = 0;
    meta->requires_grad = false;
    meta->retain_grad_hook = 0;
  }
  // A detached view leaves autograd's view tracking too: in-place writes through it no longer
  // rewrite its base's history, and writes to the base no longer regenerate its own.
  TensorImplMutators::set_view_base(*impl_, {});
  return mut();
}

HookHandle Tensor::register_hook(std::function<Tensor(const Tensor&)> hook) const {
  EMBER_CHECK(requires_grad(), "register_hook",
              "cannot register a hook on a tensor that doesn't require gradient");
  AutogradMeta& meta = TensorImplMutators::autograd_mut(*impl_);
  if (meta.grad_fn) {
    std::weak_ptr<autograd::Node> node = meta.grad_fn;
    const uint64_t id = meta.grad_fn->add_pre_hook(meta.output_nr, std::move(hook));
    return HookHandle([node, id] {
      if (auto n = node.lock()) n->remove_pre_hook(id);
    });
  }
  const uint64_t id = autograd::next_hook_id();
  meta.leaf_hooks.emplace_back(id, std::move(hook));
  intrusive_ptr<TensorImpl> impl = impl_;
  return HookHandle([impl, id] {
    auto& hooks = TensorImplMutators::autograd_mut(*impl).leaf_hooks;
    std::erase_if(hooks, [id](const auto& h) { return h.first == id; });
  });
}

HookHandle Tensor::register_post_accumulate_grad_hook(std::function<void(const Tensor&)> hook) const {
  EMBER_CHECK(requires_grad() && is_leaf(), "register_post_accumulate_grad_hook",
              "post accumulate grad hooks cannot be registered on non-leaf tensors or tensors "
              "that don't require grad");
  const uint64_t id = autograd::next_hook_id();
  TensorImplMutators::autograd_mut(*impl_).post_accumulate_hooks.emplace_back(id, std::move(hook));
  intrusive_ptr<TensorImpl> impl = impl_;
  return HookHandle([impl, id] {
    std::erase_if(TensorImplMutators::autograd_mut(*impl).post_accumulate_hooks,
                  [id](const auto& h) { return h.first == id; });
  });
}

}  // namespace ember
