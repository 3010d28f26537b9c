// nn::FullyShardedDataParallel: torch.distributed.fsdp.FullyShardedDataParallel (1.13) for CPU
// modules over an ember::dist process group.
//
//   dist::init_process_group({.backend = "gloo"});
//   auto fsdp = nn::FullyShardedDataParallel(model, {
//       .auto_wrap = nn::transformer_auto_wrap_policy<nn::TransformerEncoderLayerImpl>()});
//   optim::AdamW opt(fsdp->parameters(), {.lr = 1e-3});   // this rank's shards only
//   criterion(fsdp(x), y).backward();  opt.step();          // gradients reduce-scattered by now
//   auto sd = fsdp->full_state_dict({.rank0_only = true});  // the unwrapped model's keys
//   dcp::save(fsdp->sharded_state_dict(), dir);             // reshardable on load
//
// State dicts (1.13's three types): full_state_dict() (gathered, the unwrapped keys),
// sharded_state_dict() (dim-0 dcp::ShardedTensors under the unwrapped keys) and Module's own
// state_dict() as the local one (this rank's flat shards: "flat_param", "flat_param_<i>"); for
// the optimizer full_optim_state_dict() (keyed by parameter name) and
// sharded_optim_state_dict(), each with its load.
//
// Each unit (a module the auto_wrap policy picked, plus the root for the rest) flattens its
// parameters into one flat parameter (named_modules order, each tensor once), pads it with
// zeros at the end to a multiple of the world size and keeps only this rank's equal chunk: the
// FSDP parameters are those chunks. Before a unit's forward its flat parameter is all-gathered
// and the module's own parameter handles are pointed into it; FULL_SHARD frees it again after
// the forward (except the root's, as 1.13 does) and all-gathers it once more when backward first
// needs a value it saved. When every parameter of a unit has its gradient, the gradients are
// flattened, reduce-scattered with ReduceOp::AVG and added to the shard's .grad (the module's
// parameters' .grad are cleared), and the unit is resharded. NO_SHARD (forced at world size 1,
// as in 1.13) keeps the whole flat parameter on every rank and all-reduces its gradient.
// Outside forward/backward the wrapped module's parameters hold no data (shape [0]).
// Manual nesting: submodules the user wrapped in FSDP themselves keep their own units; the
// enclosing FSDP lists them as children (parameters() reaches their shards), leaves their
// parameters out of its own units, and under FULL_SHARD they free after their forward.
// train()/eval() on the wrapper reach the wrapped module at the next forward.
// A unit's reduce-scatter is started asynchronously as soon as its last gradient arrives and is
// waited for when backward ends (so it overlaps the rest of backward); the all-gathers are
// issued where a unit needs them, or ahead with forward_prefetch and backward_prefetch (the
// order of units recorded in the first forward, backward's the reverse). A checkpointed unit's
// recompute in backward runs on what its pre-backward gather brought, without forward's
// prefetch and reshard. Under
// no_sync() gradients add up unsharded per unit until the next backward outside it reduces
// them. Differences from 1.13:
// inside a forward every tensor autograd saves goes through FSDP's saved-tensor hooks (so a
// unit's parameters can be freed and regathered), which skips the in-place version check for
// them; a unit whose parameters only partly got gradients reduces zeros for the rest when
// backward ends (every rank must then agree on which did, or the collectives mismatch).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/autograd.h"
#include "ember/distributed/checkpoint.h"
#include "ember/distributed/process_group.h"
#include "ember/nn/module.h"
#include "ember/nn/parallel/wrap.h"
#include "ember/nn/utils.h"
#include "ember/optim/optimizer.h"

namespace ember::nn {

enum class ShardingStrategy { FULL_SHARD = 1, SHARD_GRAD_OP = 2, NO_SHARD = 3 };
const char* sharding_strategy_name(ShardingStrategy strategy);

/// torch.distributed.fsdp.MixedPrecision: only the dtypes given apply. param_dtype: what the
/// gathered parameters (and the root's floating inputs) are cast to for forward and backward;
/// the shards stay in their own precision and the optimizer updates those. reduce_dtype: what
/// gradients are reduce-scattered in (param_dtype when not given). buffer_dtype: floating
/// buffers are cast at the first forward and stay cast.
struct MixedPrecision {
  std::optional<Dtype> param_dtype = {};
  std::optional<Dtype> reduce_dtype = {};
  std::optional<Dtype> buffer_dtype = {};
};

/// torch.distributed.fsdp.BackwardPrefetch: when backward issues the all-gather of the unit it
/// needs next (the reverse of the first forward's order of units). BACKWARD_PRE: in the current
/// unit's pre-backward, before its gradients are computed, so that the gather runs while they
/// are (two units gathered at a time); BACKWARD_POST: once the current unit's gradients are all
/// there. Only FULL_SHARD frees units between forward and backward, so only it gathers there.
enum class BackwardPrefetch { BACKWARD_PRE = 1, BACKWARD_POST = 2 };

struct FullyShardedDataParallelOptions {
  dist::ProcessGroup process_group = {};  // the default group unless given
  ShardingStrategy sharding_strategy = ShardingStrategy::FULL_SHARD;
  /// Which submodules become units of their own (empty: the root is the only unit).
  AutoWrapPolicy auto_wrap = {};
  /// Broadcast rank 0's parameters and buffers before sharding.
  bool sync_module_states = false;
  MixedPrecision mixed_precision = {};
  /// None (1.13's default): each unit is gathered in backward when its backward reaches it.
  std::optional<BackwardPrefetch> backward_prefetch = {};
  /// Issue the next unit's all-gather (in the first forward's order) before the current unit's
  /// forward computes, so that the two overlap. From the second forward on, as in 1.13.
  bool forward_prefetch = false;
};

/// What FSDP does, in order, as an observer sees it (for tests and tracing).
enum class FsdpEvent {
  kAllGather,      // a unit's all-gather issued where it is needed (the caller waits for it)
  kPrefetch,       // a unit's all-gather issued ahead (forward_prefetch, backward_prefetch)
  kForward,        // a unit's parameters are gathered and its forward computes next
  kPreBackward,    // the same before its gradients are computed (once per unit and backward)
  kReduceScatter,  // a unit's gradient reduction issued (it runs while backward goes on)
};
const char* fsdp_event_name(FsdpEvent event);
/// Called with the event and the unit's module path ("" for the root unit).
using FsdpObserver = std::function<void(FsdpEvent event, const std::string& unit)>;

struct FullStateDictOptions {
  bool rank0_only = false;     // the other ranks get an empty dict (they still gather)
  bool offload_to_cpu = false;  // the parameters copied to CPU memory (buffers stay, as in 1.13)
};

/// One unit as FSDP built it.
struct FsdpUnitInfo {
  std::string module_path;                   // "" for the root
  std::vector<std::string> parameter_names;  // the unwrapped model's names, in flat order
  int64_t numel = 0;         // the parameters' elements
  int64_t padded_numel = 0;  // rounded up to a multiple of the world size
  int64_t shard_numel = 0;   // what this rank holds
  Dtype compute_dtype = kFloat32;  // of the gathered parameters (MixedPrecision.param_dtype)
  Dtype reduce_dtype = kFloat32;   // of the gradient reduction
};

namespace fsdp_detail {
class FlatParamUnit;
}

class FullyShardedDataParallelImpl : public Module {
 public:
  FullyShardedDataParallelImpl(std::shared_ptr<Module> module,
                               FullyShardedDataParallelOptions options);
  ~FullyShardedDataParallelImpl() override;

  std::string name() const override { return "FullyShardedDataParallel"; }

  /// The strategy in effect (NO_SHARD at world size 1).
  ShardingStrategy sharding_strategy() const;
  /// The units, nested ones first (post-order), the root last.
  std::vector<FsdpUnitInfo> units() const;
  const dist::ProcessGroup& process_group() const;

  /// The unwrapped model's state_dict (same keys), parameters all-gathered, one unit at a time.
  StateDict full_state_dict(FullStateDictOptions options = {});
  /// Loads a full state dict (every rank passes the whole dict): each rank keeps its shard.
  /// Missing keys and shape mismatches are errors naming the key and both shapes.
  void load_full_state_dict(const StateDict& state_dict);

  /// SHARDED_STATE_DICT: every parameter under its unwrapped name as a dcp::ShardedTensor, this
  /// rank's dim-0 chunk of it (dcp::shard_dim0, as 1.13 cuts it), and the buffers replicated in
  /// the tree: what dcp::save writes and dcp::load reshards (onto another world size, another
  /// wrapping, or a plain model's state_dict).
  dcp::State sharded_state_dict();
  /// Loads what sharded_state_dict() returned and dcp::load filled: the chunks are all-gathered
  /// and each rank keeps its flat shard. Missing keys and shape mismatches name the key.
  void load_sharded_state_dict(const dcp::State& state);

  /// 1.13's sharded_optim_state_dict for an optimizer built on parameters(): every state of a
  /// shard's size (exp_avg, momentum_buffer, ...) all-gathered, cut back into the original
  /// parameters and sharded along dim 0 as "optim.<parameter name>.<state>"; the other states
  /// (step) replicated in the tree under the same keys. The optimizer must have state (after a
  /// step), as 1.13's DCP needs it: loading fills existing state in place of its values.
  dcp::State sharded_optim_state_dict(optim::Optimizer& optimizer);
  /// Puts what dcp::load filled into sharded_optim_state_dict()'s layout back into the optimizer:
  /// each rank keeps its flat chunk of every state, whatever world size saved it.
  void load_sharded_optim_state_dict(optim::Optimizer& optimizer, const dcp::State& state);

  /// 1.13's full_optim_state_dict: {"state": {parameter name: {state: value}}, "param_groups"}
  /// with every shard-sized state all-gathered and cut back into the original parameters'
  /// shapes (keyed by name, not index). rank0_only: the other ranks get None (they still gather).
  Value full_optim_state_dict(optim::Optimizer& optimizer, bool rank0_only = false);
  /// 1.13's shard_full_optim_state_dict + load: every rank passes the whole dict and keeps its
  /// chunk of each state; the optimizer's own state is replaced (param_groups' options too).
  void load_full_optim_state_dict(optim::Optimizer& optimizer, const Value& full);

  /// nn::utils::clip_grad_norm_ over the whole model: the norm of every rank's shard gradients
  /// (an all_reduce of the local sums; NO_SHARD units' replicated gradients counted once), the
  /// same coefficient max_norm / (total + 1e-6), at most 1, applied to every shard's gradient.
  /// Every rank must call it. Returns the total norm before clipping.
  double clip_grad_norm_(double max_norm, utils::ClipGradNormOptions options = {});

  /// 1.13's no_sync(): while the guard lives, backward reduces nothing; each unit's gradients
  /// add up unsharded (a full-size flat gradient per unit, in the shards' dtype), and the first
  /// backward after it reduce-scatters them with its own. For gradient accumulation:
  ///   { auto guard = fsdp->no_sync(); loss(fsdp(x1)).backward(); }
  ///   loss(fsdp(x2)).backward();  opt.step();
  /// Applies to the manually nested instances too.
  class NoSyncGuard {
   public:
    explicit NoSyncGuard(FullyShardedDataParallelImpl& fsdp);
    ~NoSyncGuard();
    NoSyncGuard(const NoSyncGuard&) = delete;
    NoSyncGuard& operator=(const NoSyncGuard&) = delete;

   private:
    FullyShardedDataParallelImpl& fsdp_;
    bool previous_;
  };
  [[nodiscard]] NoSyncGuard no_sync() { return NoSyncGuard(*this); }

  /// Sees this instance's units' events (not those of manually nested instances); an empty
  /// function removes it.
  void set_observer(FsdpObserver observer);

  /// MixedPrecision.param_dtype applied to a floating input of the root's forward.
  Tensor cast_forward_input(const Tensor& input) const;

  /// What forward does around the wrapped module (the typed handle calls it): the root unit
  /// gathered, the saved-tensor hooks installed for the scope's lifetime.
  class ForwardScope {
   public:
    explicit ForwardScope(FullyShardedDataParallelImpl& fsdp);
    ~ForwardScope();
    ForwardScope(const ForwardScope&) = delete;
    ForwardScope& operator=(const ForwardScope&) = delete;

   private:
    FullyShardedDataParallelImpl& fsdp_;
    std::unique_ptr<autograd::graph::saved_tensors_hooks> hooks_;
  };

 protected:
  std::shared_ptr<Module> module_ptr_;

 private:
  // The units, the hooks, the nested instances and the forward/backward bookkeeping, with the
  // steps that drive them (src/nn/parallel/fully_sharded_state.h).
  struct State;
  std::unique_ptr<State> state_;
};

/// FSDP around a module of handle type M (a layer handle such as nn::Sequential, or a
/// std::shared_ptr to a user module): module() returns that handle.
template <class M>
class FullyShardedDataParallelOf : public FullyShardedDataParallelImpl {
 public:
  FullyShardedDataParallelOf(M module, FullyShardedDataParallelOptions options)
      : FullyShardedDataParallelImpl(std::shared_ptr<Module>(module), std::move(options)),
        module_(std::move(module)) {}
  const M& module() const { return module_; }

  template <class... Args>
  decltype(auto) forward(Args&&... args) {
    ForwardScope scope(*this);
    if constexpr (std::is_base_of_v<ModuleHolderBase, M>)
      return module_(cast_input(std::forward<Args>(args))...);
    else
      return nn::detail::call_forward(*module_, cast_input(std::forward<Args>(args))...);
  }

 private:
  template <class A>
  decltype(auto) cast_input(A&& arg) const {
    if constexpr (std::is_convertible_v<A, const Tensor&>)
      return Tensor(cast_forward_input(arg));
    else
      return std::forward<A>(arg);
  }

  M module_;
};

/// The handle: `auto fsdp = FullyShardedDataParallel(model, {...}); fsdp(x); fsdp->module();`.
template <class M>
class FullyShardedDataParallel : public ModuleHolder<FullyShardedDataParallelOf<M>> {
 public:
  using ModuleHolder<FullyShardedDataParallelOf<M>>::ModuleHolder;
  explicit FullyShardedDataParallel(M module, FullyShardedDataParallelOptions options = {})
      : ModuleHolder<FullyShardedDataParallelOf<M>>(
            std::make_shared<FullyShardedDataParallelOf<M>>(std::move(module),
                                                            std::move(options))) {}
};

}  // namespace ember::nn
