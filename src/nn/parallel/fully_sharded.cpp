// FullyShardedDataParallel: the units (1.13's _recursive_wrap with the auto-wrap policy, the
// root taking what is left), the forward hooks that gather and free them, the saved-tensor hooks
// that let FULL_SHARD free a unit's parameters between forward and backward, the gradient hooks
// that reduce-scatter a unit as soon as its last gradient arrives, and the full state dict. The
// sharded state dicts and the optimizer's are fully_sharded_state_dict.cpp's.
#include "ember/nn/parallel/fully_sharded.h"

#include <algorithm>
#include <any>
#include <cmath>
#include <functional>
#include <unordered_set>

#include "autograd/final_callbacks.h"
#include "core/tensor_impl_mutators.h"
#include "distributed/device_communicator.h"
#include "ember/creation.h"
#include "ember/error.h"
#include "ember/nn/layers/attention.h"
#include "ember/nn/layers/container.h"
#include "ember/tensor_impl.h"
#include "nn/parallel/flat_param.h"
#include "nn/parallel/fsdp_names.h"
#include "nn/parallel/fully_sharded_state.h"

namespace ember::nn {
using fsdp_detail::join_path;
using fsdp_detail::kFsdpOp;
using fsdp_detail::shape_text;

namespace {

using ParamSet = std::unordered_set<const TensorImpl*>;

// The parameters under `module` that no unit owns yet, in named_modules order, each once.
void unowned_parameters(const Module& module, const std::string& path, const ParamSet& owned,
                        std::vector<Tensor>& params, std::vector<std::string>& names) {
  ParamSet seen;
  for (const auto& [prefix, m] : module.named_modules()) {
    // A module the user wrapped in FSDP (manual nesting) owns its flat parameters itself.
    if (dynamic_cast<const FullyShardedDataParallelImpl*>(m.get())) continue;
    for (const auto& [name, p] : m->named_parameters(/*recurse=*/false)) {
      if (owned.count(p.impl()) || !seen.insert(p.impl()).second) continue;
      params.push_back(p);
      names.push_back(join_path(join_path(path, prefix), name));
    }
  }
}

int64_t unowned_numel(const Module& module, const ParamSet& owned) {
  std::vector<Tensor> params;
  std::vector<std::string> names;
  unowned_parameters(module, "", owned, params, names);
  int64_t n = 0;
  for (const Tensor& p : params) n += p.numel();
  return n;
}

// A value autograd saved that lives in a unit's gathered flat parameter: remembered by place,
// so that the parameter can be freed and the value rebuilt from a fresh all-gather.
struct SavedParamView {
  size_t unit;
  std::vector<int64_t> sizes, strides;
  int64_t storage_offset;
};

}  // namespace

const char* sharding_strategy_name(ShardingStrategy strategy) {
  switch (strategy) {
    case ShardingStrategy::FULL_SHARD: return "FULL_SHARD";
    case ShardingStrategy::SHARD_GRAD_OP: return "SHARD_GRAD_OP";
    case ShardingStrategy::NO_SHARD: return "NO_SHARD";
  }
  return "?";
}

AutoWrapPolicy size_based_auto_wrap_policy(int64_t min_num_params) {
  return [min_num_params](const Module& module, bool recurse, int64_t unwrapped) {
    if (unwrapped < min_num_params) return false;
    // 1.13's FORCE_LEAF_MODULES and EXCLUDE_WRAP_MODULES.
    if (recurse) return dynamic_cast<const MultiheadAttentionImpl*>(&module) == nullptr;
    return dynamic_cast<const ModuleListImpl*>(&module) == nullptr &&
           dynamic_cast<const ModuleDictImpl*>(&module) == nullptr;
  };
}

FullyShardedDataParallelImpl::FullyShardedDataParallelImpl(std::shared_ptr<Module> module,
                                                           FullyShardedDataParallelOptions options)
    : module_ptr_(std::move(module)), state_(std::make_unique<State>(*this, std::move(options))) {
  EMBER_CHECK(module_ptr_ != nullptr, kFsdpOp, "got an empty module");
  EMBER_CHECK(dist::is_initialized(), kFsdpOp,
              "the default process group has not been initialized: call "
              "dist::init_process_group() first");
  EMBER_CHECK(dynamic_cast<FullyShardedDataParallelImpl*>(module_ptr_.get()) == nullptr, kFsdpOp,
              "the module is already FullyShardedDataParallel");
  State& s = *state_;
  s.strategy_ = dist::get_world_size(s.options_.process_group) == 1 ? ShardingStrategy::NO_SHARD
                                                                    : s.options_.sharding_strategy;
  s.adopt_nested_instances();
  s.build_units();
  EMBER_CHECK(!s.units_.empty() || !s.nested_.empty(), kFsdpOp,
              "the module has no parameters to shard");
  for (size_t i = 0; i < s.units_.size(); ++i)
    register_parameter(i + 1 == s.units_.size() && s.units_[i]->module_path().empty()
                           ? std::string("flat_param")
                           : "flat_param_" + std::to_string(i),
                       s.units_[i]->shard(), s.units_[i]->shard().requires_grad());
  if (s.options_.sync_module_states)
    for (const Tensor& b : module_ptr_->buffers()) {
      Tensor t = b.detach();
      dist::broadcast(t, 0, {.group = s.options_.process_group});
    }
  s.register_unit_hooks();
}

FullyShardedDataParallelImpl::~FullyShardedDataParallelImpl() {
  for (HookHandle& h : state_->hooks_) h.remove();
}

ShardingStrategy FullyShardedDataParallelImpl::sharding_strategy() const {
  return state_->strategy_;
}
const dist::ProcessGroup& FullyShardedDataParallelImpl::process_group() const {
  return state_->options_.process_group;
}
void FullyShardedDataParallelImpl::set_observer(FsdpObserver observer) {
  state_->observer_ = std::move(observer);
}

// Manual nesting: FSDP instances inside the module run their own units; this one lists them
// as children (so parameters() reaches their shards) and frees their parameters after their
// forward under FULL_SHARD, as a non-root unit.
void FullyShardedDataParallelImpl::State::adopt_nested_instances() {
  for (const auto& [path, m] : self.module_ptr_->named_modules()) {
    auto nested = std::dynamic_pointer_cast<FullyShardedDataParallelImpl>(m);
    if (!nested || path.empty()) continue;
    bool inside_another = false;
    for (const auto& [outer_path, outer] : nested_)
      inside_another |= path.rfind(outer_path + ".", 0) == 0;
    if (inside_another) continue;
    nested->state_->is_root_ = false;
    std::string child = "nested_" + path;
    std::replace(child.begin(), child.end(), '.', '_');
    self.register_module(child, m);
    nested_.emplace_back(path, nested);
  }
}

void FullyShardedDataParallelImpl::State::build_units() {
  ParamSet owned;
  const bool sharded = strategy_ != ShardingStrategy::NO_SHARD;
  auto make_unit = [&](const Module& m, const std::string& path) {
    std::vector<Tensor> params;
    std::vector<std::string> names;
    unowned_parameters(m, path, owned, params, names);
    if (params.empty()) return;
    for (const Tensor& p : params) owned.insert(p.impl());
    units_.push_back(std::make_unique<fsdp_detail::FlatParamUnit>(
        path, std::move(params), std::move(names), options_.process_group, sharded,
        options_.sync_module_states, options_.mixed_precision.param_dtype,
        options_.mixed_precision.reduce_dtype));
  };
  // _recursive_wrap: children first, then the module for what they left.
  std::function<void(Module&, const std::string&, bool)> wrap = [&](Module& m,
                                                                  const std::string& path,
                                                                  bool only_children) {
    const AutoWrapPolicy& policy = options_.auto_wrap;
    if (!policy || !policy(m, /*recurse=*/true, unowned_numel(m, owned))) return;
    for (const auto& [name, child] : m.named_children()) {
      EMBER_CHECK(dynamic_cast<FullyShardedDataParallelImpl*>(child.get()) == nullptr, kFsdpOp,
                  "Expected ", join_path(path, name),
                  " to NOT be FullyShardedDataParallel if using an auto_wrap policy");
      wrap(*child, join_path(path, name), false);
    }
    if (!only_children && policy(m, /*recurse=*/false, unowned_numel(m, owned))) make_unit(m, path);
  };
  wrap(*self.module_ptr_, "", /*only_children=*/true);
  make_unit(*self.module_ptr_, "");
}

void FullyShardedDataParallelImpl::State::register_unit_hooks() {
  for (size_t u = 0; u < units_.size(); ++u) {
    fsdp_detail::FlatParamUnit& unit = *units_[u];
    const auto& params = unit.params();
    for (size_t i = 0; i < params.size(); ++i)
      if (params[i].requires_grad())
        hooks_.push_back(params[i].register_post_accumulate_grad_hook(
            [this, u, i](const Tensor&) { on_gradient_ready(u, i); }));
    if (unit.module_path().empty()) continue;  // the root: begin_forward gathers it
    std::shared_ptr<Module> module;
    for (const auto& [path, m] : self.module_ptr_->named_modules())
      if (path == unit.module_path()) module = m;
    hooks_.push_back(module->register_forward_pre_hook(
        [this, u](Module&, const std::vector<Tensor>&) { pre_forward(u); }));
    hooks_.push_back(module->register_forward_hook(
        [this, u](Module&, const std::vector<Tensor>&, const Tensor& output) {
          post_forward(u, output);
        }));
  }
}

const char* fsdp_event_name(FsdpEvent event) {
  switch (event) {
    case FsdpEvent::kAllGather: return "all_gather";
    case FsdpEvent::kPrefetch: return "prefetch";
    case FsdpEvent::kForward: return "forward";
    case FsdpEvent::kPreBackward: return "pre_backward";
    case FsdpEvent::kReduceScatter: return "reduce_scatter";
  }
  return "?";
}

void FullyShardedDataParallelImpl::State::notify(FsdpEvent event, size_t unit) const {
  if (observer_) observer_(event, units_[unit]->module_path());
}

void FullyShardedDataParallelImpl::State::gather(size_t unit) {
  if (units_[unit]->unshard()) notify(FsdpEvent::kAllGather, unit);
}

void FullyShardedDataParallelImpl::State::prefetch(size_t unit) {
  if (unit >= units_.size()) return;
  // In backward, a unit whose backward began already (a graph that is no chain) needs no more.
  if (in_backward_ && pre_backward_done_[unit]) return;
  if (units_[unit]->prefetch()) notify(FsdpEvent::kPrefetch, unit);
}

size_t FullyShardedDataParallelImpl::State::neighbour_in_forward(size_t unit, int direction) const {
  if (!order_recorded_) return units_.size();
  const auto at = std::find(forward_order_.begin(), forward_order_.end(), unit);
  if (at == forward_order_.end()) return units_.size();
  const auto index = (at - forward_order_.begin()) + direction;
  if (index < 0 || index >= std::ptrdiff_t(forward_order_.size())) return units_.size();
  return forward_order_[size_t(index)];
}

void FullyShardedDataParallelImpl::State::pre_forward(size_t unit) {
  // A recompute inside backward (activation checkpointing around the unit): the unit's
  // backward comes next, so this is its pre-backward.
  if (autograd::is_running_backward()) return pre_backward(unit);
  gather(unit);
  if (!order_recorded_ &&
      std::find(forward_order_.begin(), forward_order_.end(), unit) == forward_order_.end())
    forward_order_.push_back(unit);
  if (options_.forward_prefetch) prefetch(neighbour_in_forward(unit, +1));
  notify(FsdpEvent::kForward, unit);
}

void FullyShardedDataParallelImpl::State::post_forward(size_t unit, const Tensor& output) {
  // SHARD_GRAD_OP keeps the parameters to backward; so does a recompute inside backward.
  if (strategy_ != ShardingStrategy::FULL_SHARD || autograd::is_running_backward()) return;
  units_[unit]->reshard();
  // The pre-backward all-gather (1.13's hook on the outputs): before the unit's backward runs,
  // so that a recompute (activation checkpointing) finds the parameters; without one, the first
  // saved parameter that backward unpacks does it.
  if (output.defined() && output.requires_grad())
    output.register_hook([this, unit](const Tensor&) {
      pre_backward(unit);
      return Tensor();
    });
}

void FullyShardedDataParallelImpl::State::pre_backward(size_t unit) {
  if (!in_backward_) {
    in_backward_ = true;
    pre_backward_done_.assign(units_.size(), false);
  }
  gather(unit);
  if (pre_backward_done_[unit]) return;
  pre_backward_done_[unit] = true;
  if (options_.backward_prefetch == BackwardPrefetch::BACKWARD_PRE)
    prefetch(neighbour_in_forward(unit, -1));
  notify(FsdpEvent::kPreBackward, unit);
}

std::vector<FsdpUnitInfo> FullyShardedDataParallelImpl::units() const {
  std::vector<FsdpUnitInfo> out;
  for (const auto& u : state_->units_)
    out.push_back({u->module_path(), u->names(), u->numel(), u->padded_numel(), u->shard_numel(),
                   u->compute_dtype(), u->reduce_dtype()});
  for (const auto& [path, nested] : state_->nested_)
    for (FsdpUnitInfo info : nested->units()) {
      info.module_path = join_path(path, info.module_path);
      for (std::string& n : info.parameter_names) n = join_path(path, n);
      out.push_back(std::move(info));
    }
  return out;
}

size_t FullyShardedDataParallelImpl::State::unit_of_storage(const Tensor& t) const {
  for (size_t u = 0; u < units_.size(); ++u) {
    const Tensor& flat = units_[u]->is_unsharded() ? units_[u]->full() : units_[u]->shard();
    if (flat.defined() && t.storage().get() == flat.storage().get()) return u;
  }
  return units_.size();
}

void FullyShardedDataParallelImpl::State::begin_forward() {
  if (self.module_ptr_->is_training() != self.is_training())
    self.module_ptr_->train(self.is_training());
  cast_buffers_once();
  // Parameters gathered before an optimizer step (a forward without backward) are stale.
  reshard_all();
  in_backward_ = false;
  for (size_t u = 0; u < units_.size(); ++u)
    if (units_[u]->module_path().empty()) pre_forward(u);
}

FullyShardedDataParallelImpl::ForwardScope::ForwardScope(FullyShardedDataParallelImpl& fsdp)
    : fsdp_(fsdp) {
  fsdp.state_->begin_forward();
  auto* self = &fsdp;
  hooks_ = std::make_unique<autograd::graph::saved_tensors_hooks>(
      [self](const Tensor& t) -> std::any {
        const size_t u = self->state_->unit_of_storage(t);
        if (u == self->state_->units_.size() || !self->state_->units_[u]->is_unsharded()) return t;
        return SavedParamView{u, std::vector<int64_t>(t.sizes().begin(), t.sizes().end()),
                              std::vector<int64_t>(t.strides().begin(), t.strides().end()),
                              t.storage_offset()};
      },
      [self](const std::any& packed) -> Tensor {
        if (const auto* t = std::any_cast<Tensor>(&packed)) return *t;
        const auto& v = std::any_cast<const SavedParamView&>(packed);
        // FULL_SHARD freed it after forward: the pre-backward all-gather, unless done already.
        self->state_->pre_backward(v.unit);
        return self->state_->units_[v.unit]->full().as_strided(v.sizes, v.strides,
                                                               v.storage_offset);
      });
}

FullyShardedDataParallelImpl::ForwardScope::~ForwardScope() {
  hooks_.reset();
  fsdp_.state_->order_recorded_ = true;
  if (!fsdp_.state_->is_root_ && fsdp_.state_->strategy_ == ShardingStrategy::FULL_SHARD)
    fsdp_.state_->reshard_all();
}

void FullyShardedDataParallelImpl::State::on_gradient_ready(size_t unit, size_t param) {
  if (!finish_queued_) {
    finish_queued_ = true;
    autograd::queue_callback([this] { finish_backward(); });
  }
  if (!in_backward_) {
    in_backward_ = true;
    pre_backward_done_.assign(units_.size(), false);
  }
  fsdp_detail::FlatParamUnit& u = *units_[unit];
  if (u.mark_ready(param)) {
    reduce_or_accumulate(unit);
    pre_backward_done_[unit] = true;  // its backward is over: not to be prefetched again
    u.reshard();
    if (options_.backward_prefetch == BackwardPrefetch::BACKWARD_POST &&
        strategy_ == ShardingStrategy::FULL_SHARD)
      prefetch(neighbour_in_forward(unit, -1));
  }
}

void FullyShardedDataParallelImpl::State::finish_backward() {
  finish_queued_ = false;
  in_backward_ = false;
  // A unit some of whose parameters got no gradient: reduce what it has (zeros elsewhere).
  for (size_t u = 0; u < units_.size(); ++u)
    if (units_[u]->any_ready()) reduce_or_accumulate(u);
  for (auto& u : units_) u->finish_reduce();
  reshard_all();
}

void FullyShardedDataParallelImpl::State::reduce_or_accumulate(size_t unit) {
  if (!grad_sync_) {
    units_[unit]->accumulate_unsharded();
    return;
  }
  units_[unit]->launch_reduce();  // overlaps the rest of backward; finish_backward waits
  notify(FsdpEvent::kReduceScatter, unit);
}

void FullyShardedDataParallelImpl::State::set_grad_sync(bool sync) {
  grad_sync_ = sync;
  for (auto& [path, nested] : nested_) nested->state_->set_grad_sync(sync);
}

FullyShardedDataParallelImpl::NoSyncGuard::NoSyncGuard(FullyShardedDataParallelImpl& fsdp)
    : fsdp_(fsdp), previous_(fsdp.state_->grad_sync_) {
  fsdp.state_->set_grad_sync(false);
}

FullyShardedDataParallelImpl::NoSyncGuard::~NoSyncGuard() {
  fsdp_.state_->set_grad_sync(previous_);
}

void FullyShardedDataParallelImpl::State::reshard_all() {
  for (auto& u : units_) u->reshard();
}

StateDict FullyShardedDataParallelImpl::full_state_dict(FullStateDictOptions options) {
  State& s = *state_;
  const bool keep = !options.rank0_only || dist::get_rank(s.options_.process_group) == 0;
  StateDict out;  // the wrapped module's order; a nested instance's entries where it sits
  std::vector<bool> nested_done(s.nested_.size(), false);
  for (const auto& [key, value] : module_ptr_->state_dict()) {
    size_t n = 0;
    while (n < s.nested_.size() && key.rfind(s.nested_[n].first + ".", 0) != 0) ++n;
    if (n == s.nested_.size()) {
      out.insert(key, value);
    } else if (!nested_done[n]) {
      nested_done[n] = true;
      for (const auto& [k, v] : s.nested_[n].second->full_state_dict(options))
        out.insert(join_path(s.nested_[n].first, k), v);
    }
  }
  // Every rank gathers, whatever rank0_only says.
  for (size_t n = 0; n < s.nested_.size(); ++n)
    if (!nested_done[n]) s.nested_[n].second->full_state_dict(options);
  for (auto& u : s.units_) {
    std::vector<Tensor> values = u->gather_values();
    // offload_to_cpu: the gathered parameters copied to CPU memory, as 1.13's
    // FullStateDictConfig(offload_to_cpu=True) does (buffers stay where they are, as there).
    if (keep)
      for (size_t i = 0; i < values.size(); ++i)
        out.insert(u->names()[i], options.offload_to_cpu ? values[i].cpu() : values[i]);
  }
  if (!keep) return {};
  s.restore_buffer_dtypes(out, "");
  return out;
}

void FullyShardedDataParallelImpl::load_full_state_dict(const StateDict& state_dict) {
  for (const auto& [path, nested] : state_->nested_) {
    StateDict inner;
    for (const auto& [key, value] : state_dict)
      if (key.rfind(path + ".", 0) == 0) inner.insert(key.substr(path.size() + 1), value);
    nested->load_full_state_dict(inner);
  }
  state_->load_own_state(state_dict);
}

// This instance's units and the wrapped module's buffers (not the nested instances').
void FullyShardedDataParallelImpl::State::load_own_state(const StateDict& state_dict) {
  for (auto& u : units_) {
    std::vector<Tensor> values;
    for (const std::string& name : u->names()) {
      EMBER_CHECK(state_dict.contains(name), kFsdpOp, "load_full_state_dict: missing key '", name,
                  "'");
      values.push_back(state_dict.at(name));
    }
    u->load_full(values);
  }
  NoGradGuard no_grad;
  for (const auto& [name, b] : self.module_ptr_->named_buffers()) {
    if (!state_dict.contains(name)) continue;  // non-persistent buffers are not in a state dict
    const Tensor& value = state_dict.at(name);
    Tensor t = b.detach();
    EMBER_CHECK(t.numel() == value.numel(), kFsdpOp,
                "load_full_state_dict: size mismatch for buffer ", name, ": ", value.numel(),
                " elements in the dict, ", t.numel(), " in the model");
    t.copy_(value.reshape(t.sizes()));
  }
}

void FullyShardedDataParallelImpl::State::collect_units(
    std::vector<fsdp_detail::FlatParamUnit*>& out) const {
  for (const auto& u : units_) out.push_back(u.get());
  for (const auto& [path, nested] : nested_) nested->state_->collect_units(out);
}

double FullyShardedDataParallelImpl::clip_grad_norm_(double max_norm,
                                                     utils::ClipGradNormOptions options) {
  NoGradGuard no_grad;
  const double q = options.norm_type;
  const bool inf = std::isinf(q);
  std::vector<fsdp_detail::FlatParamUnit*> all;
  state_->collect_units(all);
  // Sums of |g|^q (or maxima of |g|), in float64: over the shards (reduced across ranks) and
  // over NO_SHARD's whole, replicated gradients (the same on every rank).
  double sharded = 0, replicated = 0;
  for (const fsdp_detail::FlatParamUnit* u : all) {
    const Tensor& g = u->shard().grad();
    if (!g.defined()) continue;
    const Tensor a = g.detach().to(kFloat64).abs();
    const double part = inf ? (a.numel() ? a.max().item<double>() : 0.0)
                            : a.pow(q).sum().item<double>();
    double& into = u->is_sharded() ? sharded : replicated;
    into = inf ? std::max(into, part) : into + part;
  }
  // On the group's device (an nccl group takes CUDA tensors): the shards'.
  const Device on = dist::collective_device(state_->options_.process_group,
                                            all.empty() ? Device(kCPU) : all[0]->shard().device());
  Tensor across = from_vector(std::vector<double>{sharded}).to(on);
  dist::all_reduce(across, {.op = inf ? dist::ReduceOp::MAX : dist::ReduceOp::SUM,
                            .group = state_->options_.process_group});
  sharded = across.cpu().item<double>();
  const double total = inf ? std::max(sharded, replicated) : std::pow(sharded + replicated, 1.0 / q);
  EMBER_CHECK(!options.error_if_nonfinite || std::isfinite(total), "FullyShardedDataParallel.clip_grad_norm_",
              "The total norm of order ", q, " for gradients from `parameters` is non-finite, so "
              "it cannot be clipped. To disable this error and scale the gradients by the "
              "non-finite norm anyway, set `error_if_nonfinite=false`");
  const double coef = std::min(max_norm / (total + 1e-6), 1.0);
  for (const fsdp_detail::FlatParamUnit* u : all) {
    const Tensor& g = u->shard().grad();
    if (g.defined()) g.detach().mul_(coef);
  }
  return total;
}

// MixedPrecision.buffer_dtype: the floating buffers are cast at the first forward and stay
// cast (1.13); state dicts give them back in their own dtype.
void FullyShardedDataParallelImpl::State::cast_buffers_once() {
  const auto& dtype = options_.mixed_precision.buffer_dtype;
  if (!dtype || buffers_cast_) return;
  buffers_cast_ = true;
  NoGradGuard no_grad;
  for (const auto& [name, b] : self.module_ptr_->named_buffers()) {
    if (!b.is_floating_point() || b.dtype() == *dtype) continue;
    buffer_dtypes_.emplace_back(name, b.dtype());
    const Tensor cast = b.detach().to(*dtype).contiguous();
    TensorImplMutators::set_data(*b.impl(), *cast.impl());
  }
}

Dtype FullyShardedDataParallelImpl::State::original_dtype(const std::string& buffer,
                                                          const Tensor& value) const {
  for (const auto& [name, dtype] : buffer_dtypes_)
    if (name == buffer) return dtype;
  return value.dtype();
}

void FullyShardedDataParallelImpl::State::restore_buffer_dtypes(StateDict& out,
                                                                const std::string& prefix) const {
  for (const auto& [name, dtype] : buffer_dtypes_) {
    const std::string key = join_path(prefix, name);
    if (out.contains(key)) out.insert(key, out.at(key).to(dtype));
  }
}

Tensor FullyShardedDataParallelImpl::cast_forward_input(const Tensor& input) const {
  const auto& dtype = state_->options_.mixed_precision.param_dtype;
  if (!dtype || !input.defined() || !input.is_floating_point() || input.dtype() == *dtype)
    return input;
  return input.to(*dtype);
}

void FullyShardedDataParallelImpl::State::collect_named_units(
    std::vector<std::pair<std::string, fsdp_detail::FlatParamUnit*>>& out,
    const std::string& prefix) const {
  for (const auto& u : units_) out.emplace_back(prefix, u.get());
  for (const auto& [path, nested] : nested_)
    nested->state_->collect_named_units(out, join_path(prefix, path));
}

}  // namespace ember::nn
