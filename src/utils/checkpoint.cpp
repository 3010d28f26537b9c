// Non-reentrant activation checkpointing (PyTorch 1.13's _checkpoint_without_reentrant) and the
// module wrapper that apply_activation_checkpointing installs.
//
// Note [Checkpoint placeholders]
// The forward runs fn inside saved_tensors_hooks whose pack keeps no tensor: it returns a
// placeholder (a Holder) and remembers it, in order, in the region's Frame. The graph built by
// the forward therefore holds no activation of fn. The first unpack of any placeholder reruns
// fn under the forward's RNG state and autocast settings, with hooks whose pack fills the n-th
// remembered Holder with the n-th tensor saved (detached: the recomputed graph itself is
// dropped). Each unpack takes its tensor out of its Holder, so the recomputed activations are
// freed as the backward consumes them; when none is left filled, the next unpack recomputes
// again (a second backward with retain_graph). A checkpoint nested in fn pushes its own hooks,
// so the tensors it saves never reach the outer Frame, in the forward and in the recompute alike.
#include "ember/utils/checkpoint.h"

#include <any>
#include <memory>
#include <optional>

#include "ember/amp/autocast.h"
#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/generator.h"
#include "ember/nn/module.h"

namespace ember::utils {
namespace {

constexpr const char* kCheckpointOp = "checkpoint";
namespace graph = autograd::graph;

struct Holder {
  Tensor recomputed;
  bool filled = false;
};

struct AutocastState {
  bool enabled = false;
  Dtype dtype = kBFloat16;
};

struct Frame {
  CheckpointFunction fn;
  std::vector<Tensor> inputs;
  std::optional<std::vector<uint8_t>> rng_state;  // the default generator before the forward
  AutocastState cpu_autocast;
  bool cache_enabled = true;
  std::vector<std::weak_ptr<Holder>> holders;  // in the order the forward saved them
  size_t filled = 0;                           // holders filled by the last recompute

  void recompute() {
    size_t next = 0;
    graph::PackHook pack = [this, &next](const Tensor& t) -> std::any {
      const size_t i = next++;
      if (i >= holders.size()) return {};  // more saved than in the forward: reported below
      if (auto h = holders[i].lock()) {    // a dead holder: its node is gone, nothing to keep
        h->recomputed = t.detach();
        h->filled = true;
        ++filled;
      }
      return {};
    };
    graph::UnpackHook unpack = [](const std::any&) -> Tensor {
      fail(kCheckpointOp,
           "a tensor saved while recomputing a checkpoint was unpacked; the recomputed "
           "graph is not meant to be run");
    };
    std::optional<std::vector<uint8_t>> surrounding;
    if (rng_state) {
      surrounding = default_generator().get_state();
      default_generator().set_state(*rng_state);
    }
    try {
      EnableGradGuard grad;
      amp::autocast cast(kCPU, cpu_autocast.dtype,
                         {.enabled = cpu_autocast.enabled, .cache_enabled = cache_enabled});
      autograd::graph::saved_tensors_hooks hooks(pack, unpack);
      (void)fn(inputs);
    } catch (...) {
      if (surrounding) default_generator().set_state(*surrounding);
      throw;
    }
    if (surrounding) default_generator().set_state(*surrounding);
    EMBER_CHECK(next == holders.size(), kCheckpointOp,
                "the recomputation of a checkpointed function saved ", next,
                " tensors for backward but its forward saved ", holders.size(),
                "; the function must compute the same graph each time it runs (no data-dependent "
                "control flow between the forward and the backward)");
  }
};

struct Placeholder {
  std::shared_ptr<Frame> frame;
  std::shared_ptr<Holder> holder;
};

// The forward wrapper of a checkpointed module (a named type, so that
// is_activation_checkpointed can recognise it among forward wrappers).
struct CheckpointWrapper {
  CheckpointOptions options;
  Tensor operator()(const std::vector<Tensor>& in,
                    const std::function<Tensor(const std::vector<Tensor>&)>& forward) const {
    CheckpointFunction fn = [forward](const std::vector<Tensor>& x) {
      return std::vector<Tensor>{forward(x)};
    };
    return checkpoint(fn, in, options)[0];
  }
};

}  // namespace

std::vector<Tensor> checkpoint(const CheckpointFunction& fn, const std::vector<Tensor>& inputs,
                               CheckpointOptions options) {
  EMBER_CHECK(bool(fn), kCheckpointOp, "the function to checkpoint is empty");
  // Without a graph there is nothing to save, so nothing to recompute.
  if (!is_grad_enabled()) return fn(inputs);

  auto frame = std::make_shared<Frame>();
  frame->fn = fn;
  frame->inputs = inputs;
  if (options.preserve_rng_state) frame->rng_state = default_generator().get_state();
  frame->cpu_autocast = {amp::is_autocast_enabled(kCPU), amp::get_autocast_dtype(kCPU)};
  frame->cache_enabled = amp::is_autocast_cache_enabled();

  // The hooks hold the frame weakly: the placeholders in the graph are what keep it alive.
  std::weak_ptr<Frame> weak = frame;
  graph::PackHook pack = [weak](const Tensor&) -> std::any {
    auto f = weak.lock();
    auto h = std::make_shared<Holder>();
    f->holders.push_back(h);
    return Placeholder{f, h};
  };
  graph::UnpackHook unpack = [](const std::any& packed) -> Tensor {
    const auto& p = std::any_cast<const Placeholder&>(packed);
    if (p.frame->filled == 0) p.frame->recompute();
    EMBER_CHECK(p.holder->filled, kCheckpointOp,
                "Attempt to retrieve a tensor saved by autograd multiple times without checkpoint "
                "recomputation being triggered in between, this is not currently supported.");
    p.holder->filled = false;
    --p.frame->filled;
    return std::move(p.holder->recomputed);
  };
  graph::saved_tensors_hooks hooks(pack, unpack);
  return fn(inputs);
}

std::vector<std::string> apply_activation_checkpointing(
    nn::Module& model, const std::function<bool(const nn::Module&)>& check_fn,
    CheckpointOptions options) {
  EMBER_CHECK(bool(check_fn), "apply_activation_checkpointing", "check_fn is empty");
  std::vector<std::string> wrapped;
  for (auto& [name, module] : model.named_modules()) {
    if (module.get() == &model || !check_fn(*module)) continue;
    EMBER_CHECK(!module->has_forward_wrapper(), "apply_activation_checkpointing", "module '", name,
                "' (", module->name(),
                ") already has a forward wrapper (is it checkpointed already?)");
    module->set_forward_wrapper(CheckpointWrapper{options});
    wrapped.push_back(name);
  }
  return wrapped;
}

bool is_activation_checkpointed(const nn::Module& module) {
  return module.forward_wrapper().target<CheckpointWrapper>() != nullptr;
}

}  // namespace ember::utils
