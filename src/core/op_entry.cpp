// The op-entry scope's slow path: the device check's error, the observer's calls and autocast.
#include "core/op_entry.h"

#include <cstring>
#include <memory>
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

// Same op name: the same literal is usually one address (the linker merges equal strings), and
// names that differ almost always differ in their first character, so strcmp rarely runs.
bool same_name(const char* a, const char* b) {
  return a == b || (a[0] == b[0] && std::strcmp(a, b) == 0);
}

}  // namespace

struct OpScope::Autocast {
  Device device{kCPU};
  CastPolicy policy = CastPolicy::kUntouched;  // the op's, looked up at entry
  std::vector<const Tensor*> inputs;  // the op's (outlive the scope: they are its arguments)
  std::vector<Tensor> cast;            // filled by apply_autocast
  bool suspended = false;              // this scope holds autocast off
};

namespace {

// Note [Autocast scope pool]
// A scope that autocast may cast needs its inputs and their casts. Those scopes nest (an op
// whose casts changed nothing runs its inner ops unsuspended), so they are taken from a
// per-thread stack of reused objects: after the first few ops of a region no op allocates for
// the bookkeeping, its vectors keep their capacity.
// (A template, so that OpScope's members name their private Autocast as its argument.)
template <class Autocast>
struct Pool {
  std::vector<std::unique_ptr<Autocast>> free;
  Autocast* take() {
    if (free.empty()) return new Autocast;
    Autocast* a = free.back().release();
    free.pop_back();
    return a;
  }
  void give(Autocast* a) {
    a->inputs.clear();
    a->cast.clear();
    a->suspended = false;
    free.emplace_back(a);
  }
};

template <class Autocast>
Pool<Autocast>& pool() {
  thread_local Pool<Autocast> p;
  return p;
}

}  // namespace

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

namespace {

// The inputs' addresses for the slow path, on the stack for the usual few inputs.
class InputPointers {
 public:
  explicit InputPointers(size_t n) {
    if (n > kInline) heap_.resize(n);
  }
  const Tensor*& operator[](size_t i) { return heap_.empty() ? inline_[i] : heap_[i]; }
  std::span<const Tensor* const> span(size_t n) const {
    return {heap_.empty() ? inline_ : heap_.data(), n};
  }

 private:
  static constexpr size_t kInline = 8;
  const Tensor* inline_[kInline] = {};
  std::vector<const Tensor*> heap_;
};

}  // namespace

OpScope::OpScope(const char* op, std::span<const Tensor> inputs) {
  const bool hooks = hooks_active.load(std::memory_order_relaxed) != 0;
  bool all_cpu = true;
  for (const Tensor& t : inputs) all_cpu &= !t.defined() || t.is_cpu();
  if (all_cpu && !hooks) return;
  InputPointers pointers(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) pointers[i] = &inputs[i];
  if (!all_cpu) check_same_device(op, pointers.span(inputs.size()));
  if (hooks) enter(op, pointers.span(inputs.size()));
}

OpScope::OpScope(const char* op, const Tensor& self, std::initializer_list<const Tensor*> others) {
  const bool hooks = hooks_active.load(std::memory_order_relaxed) != 0;
  bool all_cpu = !self.defined() || self.is_cpu();
  for (const Tensor* t : others) all_cpu &= !t || !t->defined() || t->is_cpu();
  if (all_cpu && !hooks) return;
  const size_t n = others.size() + 1;
  InputPointers pointers(n);
  pointers[0] = &self;
  size_t i = 1;
  for (const Tensor* t : others) pointers[i++] = t;
  if (!all_cpu) check_same_device(op, pointers.span(n));
  if (hooks) enter(op, pointers.span(n));
}

void OpScope::enter(const char* op, std::span<const Tensor* const> inputs) {
  // A scope directly inside one of the same name is the same op (a wrapper such as Tensor::sum
  // calling sum, a composite's own Recorder, autocast's redispatch): hooked once.
  if (t_state.innermost && same_name(t_state.innermost, op)) return;
  name_ = op;
  // Autocast first: its policy lookup may refuse the op (a banned op), and then there is nothing
  // to undo yet.
  if (t_state.policy && t_state.autocast_suspended == 0) {
    Device device(kCPU);
    bool any_floating = false;
    for (const Tensor* t : inputs) {
      if (!t || !t->defined()) continue;
      any_floating |= t->is_floating_point();
      if (!(t->dim() == 0 && t->is_cpu())) device = t->device();
    }
    // Only an op whose policy may cast keeps its inputs; the rest of a region's ops (add, relu,
    // ...) take no bookkeeping at all.
    const CastPolicy policy =
        any_floating ? t_state.policy->policy(op, device) : CastPolicy::kUntouched;
    if (policy != CastPolicy::kUntouched) {
      autocast_ = pool<Autocast>().take();
      autocast_->device = device;
      autocast_->policy = policy;
      autocast_->inputs.assign(inputs.begin(), inputs.end());
    }
  }
  if ((observer_ = g_observer.load(std::memory_order_acquire))) observer_->on_enter({op, inputs});
  hooked_ = observer_ != nullptr || autocast_ != nullptr;
  if (hooked_) enclosing_ = std::exchange(t_state.innermost, op);
}

bool OpScope::apply_autocast() {
  Autocast& a = *autocast_;
  if (!a.cast.empty()) return true;
  const CastPolicy policy = a.policy;
  const AutocastPolicy& hook = *t_state.policy;
  std::optional<Dtype> widest;
  for (const Tensor* t : a.inputs)
    if (t && t->defined() && t->is_floating_point())
      widest = widest ? promote_types(*widest, t->dtype()) : t->dtype();
  const auto target = [&](Dtype from) -> std::optional<Dtype> {
    switch (policy) {
      case CastPolicy::kLowerPrecision:
        if (from == kFloat32) return hook.lower_precision_dtype(a.device);
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
    a.cast.push_back(to && *to != t->dtype() ? hook.cast(*t, *to) : *t);
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
    pool<Autocast>().give(autocast_);
  }
  t_state.innermost = enclosing_;
  if (observer_) observer_->on_exit(name_);
}

}  // namespace ember
