// The op-entry scope's slow path: the device check's error, the observer's calls and autocast.
#include "core/op_entry.h"

#include <cstring>
#include <optional>

#include "ember/error.h"

namespace ember {

namespace op_entry_detail {
std::atomic<uint32_t> hooks_active{0};
}  // namespace op_entry_detail

namespace {

using op_entry_detail::hooks_active;

std::atomic<OpObserver*> g_observer{nullptr};

struct ThreadState {
  const AutocastPolicy* policy = nullptr;
  uint32_t autocast_suspended = 0;  // > 0 inside an op whose inputs autocast cast
  const char* innermost = nullptr;  // the name of the innermost hooked scope
};
thread_local ThreadState t_state;

}  // namespace

struct OpScope::Autocast {
  const AutocastPolicy* policy;
  Device device;
  std::vector<const Tensor*> inputs;  // the op's (outlive the scope: they are its arguments)
  std::vector<Tensor> cast;            // filled by apply_autocast
  bool suspended = false;              // this scope holds autocast off
};

void check_same_device(const char* op, std::span<const Tensor* const> inputs) {
  const Tensor* first = nullptr;
  for (const Tensor* t : inputs) {
    if (!t || !t->defined() || (t->dim() == 0 && t->is_cpu())) continue;
    if (!first) {
      first = t;
      continue;
    }
    EMBER_CHECK(t->device() == first->device(), op, "expected all tensors on one device, got ",
                first->device(), " and ", t->device());
  }
}

OpObserver* set_op_observer(OpObserver* observer) {
  OpObserver* previous = g_observer.exchange(observer);
  if (!previous && observer) hooks_active.fetch_add(1);
  if (previous && !observer) hooks_active.fetch_sub(1);
  return previous;
}

const AutocastPolicy* set_autocast_policy(const AutocastPolicy* policy) {
  const AutocastPolicy* previous = std::exchange(t_state.policy, policy);
  if (!previous && policy) hooks_active.fetch_add(1);
  if (previous && !policy) hooks_active.fetch_sub(1);
  return previous;
}

OpScope::OpScope(const char* op, std::span<const Tensor> inputs) {
  std::vector<const Tensor*> pointers;
  const bool hooks = hooks_active.load(std::memory_order_relaxed) != 0;
  bool all_cpu = true;
  for (const Tensor& t : inputs) all_cpu &= !t.defined() || t.is_cpu();
  if (all_cpu && !hooks) return;
  pointers.reserve(inputs.size());
  for (const Tensor& t : inputs) pointers.push_back(&t);
  if (!all_cpu) check_same_device(op, pointers);
  if (hooks) enter(op, pointers);
}

OpScope::OpScope(const char* op, const Tensor& self, std::initializer_list<const Tensor*> others) {
  const bool hooks = hooks_active.load(std::memory_order_relaxed) != 0;
  bool all_cpu = !self.defined() || self.is_cpu();
  for (const Tensor* t : others) all_cpu &= !t || !t->defined() || t->is_cpu();
  if (all_cpu && !hooks) return;
  std::vector<const Tensor*> pointers{&self};
  pointers.insert(pointers.end(), others.begin(), others.end());
  if (!all_cpu) check_same_device(op, pointers);
  if (hooks) enter(op, pointers);
}

void OpScope::enter(const char* op, std::span<const Tensor* const> inputs) {
  // A scope directly inside one of the same name is the same op (a wrapper such as Tensor::sum
  // calling sum, a composite's own Recorder, autocast's redispatch): hooked once.
  if (t_state.innermost && std::strcmp(t_state.innermost, op) == 0) return;
  name_ = op;
  if ((observer_ = g_observer.load(std::memory_order_acquire))) observer_->on_enter({op, inputs});
  hooked_ = observer_ != nullptr;
  if (t_state.policy && t_state.autocast_suspended == 0) {
    Device device(kCPU);
    bool any_floating = false;
    for (const Tensor* t : inputs) {
      if (!t || !t->defined()) continue;
      any_floating |= t->is_floating_point();
      if (!(t->dim() == 0 && t->is_cpu())) device = t->device();
    }
    if (any_floating) {
      autocast_ = new Autocast{t_state.policy, device, {inputs.begin(), inputs.end()}, {}};
      hooked_ = true;
    }
  }
  if (hooked_) enclosing_ = std::exchange(t_state.innermost, op);
}

bool OpScope::apply_autocast() {
  Autocast& a = *autocast_;
  if (!a.cast.empty()) return true;
  const CastPolicy policy = a.policy->policy(name_, a.device);
  if (policy == CastPolicy::kUntouched) return false;
  std::optional<Dtype> widest;
  for (const Tensor* t : a.inputs)
    if (t && t->defined() && t->is_floating_point())
      widest = widest ? promote_types(*widest, t->dtype()) : t->dtype();
  const auto target = [&](Dtype from) -> std::optional<Dtype> {
    switch (policy) {
      case CastPolicy::kLowerPrecision:
        if (from == kFloat32) return a.policy->lower_precision_dtype(a.device);
        return {};
      case CastPolicy::kFloat32:
        if (from == kFloat16 || from == kBFloat16) return kFloat32;
        return {};
      case CastPolicy::kPromote: return widest;
      case CastPolicy::kUntouched: return {};
    }
    return {};
  };
  bool changed = false;
  a.suspended = true;
  ++t_state.autocast_suspended;  // the casts, and the redispatched op's inner ops
  a.cast.reserve(a.inputs.size());
  for (const Tensor* t : a.inputs) {
    if (!t || !t->defined() || !t->is_floating_point()) {
      a.cast.push_back(t ? *t : Tensor());
      continue;
    }
    const std::optional<Dtype> to = target(t->dtype());
    changed |= to && *to != t->dtype();
    a.cast.push_back(to && *to != t->dtype() ? a.policy->cast(*t, *to) : *t);
  }
  if (!changed) {
    a.cast.clear();
    return false;
  }
  return true;
}

const Tensor& OpScope::cast(size_t i) const {
  EMBER_CHECK(autocast_ && i < autocast_->cast.size(), name_ ? name_ : "autocast",
              "OpScope::cast(", i, ") without autocast's cast inputs");
  return autocast_->cast[i];
}

void OpScope::leave() {
  if (autocast_) {
    if (autocast_->suspended) --t_state.autocast_suspended;
    delete autocast_;
  }
  t_state.innermost = enclosing_;
  if (observer_) observer_->on_exit(name_);
}

}  // namespace ember
