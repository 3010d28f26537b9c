// torch::optim's optimizers over ember's (Note [LibTorch optimizers over ember's]).
//
// Note [LibTorch optimizers over ember's]: torch::optim::SGD and the others are LibTorch's
// classes in front of an ember optimizer (the engine: ember::optim::SGD, ...), whose update
// rules give PyTorch's numbers and whose state_dict() is PyTorch's optimizer.state_dict().
// What a program sees and changes are LibTorch's typed objects — param_groups()[i].options()
// (static_cast to AdamOptions&, set_lr, a scheduler), params(), state() — so those are the
// truth, and they are pushed into the engine before each step() and save: each group's options
// become its option Dict (ember's resolve_options, so keys, order and int/float kinds are
// PyTorch's; keys the engine group has beyond them, e.g. from a loaded Python state dict, stay),
// its parameter list replaces the engine group's, and state handed out by state() is written
// back (and read again after the step, so objects a program holds stay current, as LibTorch's
// do). load() restores the state only, as LibTorch 1.13 does (its archives carry the groups'
// options, but it keeps the options the program constructed): the engine loads the state dict,
// then the typed options are pushed over the loaded ones. state() is filled from the engine when
// asked, updating the objects it gave before (references to them stay valid); their tensors are
// the engine's own, so an in-place change to one reaches the optimizer at once.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/error.h"
#include "ember/optim/optimizer.h"
#include "torch/optim/detail/typed_base.h"
#include "torch/optim/optimizer.h"

namespace torch::optim::detail {

/// What does not depend on the optimizer's types (src/libtorch/ember_optimizer.cpp).
class EngineOptimizer : public Optimizer {
 public:
  Tensor step(LossClosure closure = nullptr) override;
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;

 protected:
  EngineOptimizer(std::vector<OptimizerParamGroup> param_groups,
                  std::unique_ptr<OptimizerOptions> defaults)
      : Optimizer(std::move(param_groups), std::move(defaults)) {}
  /// Ends the typed constructor: the engine made from param_groups_, then the first push.
  void set_engine(std::unique_ptr<ember::optim::Optimizer> engine);
  ember::optim::Optimizer& engine() const { return *engine_; }

  /// The group's options as PyTorch's group dict.
  virtual ember::Dict engine_options(const OptimizerOptions& options) const = 0;
  virtual void add_engine_group(const OptimizerParamGroup& group) = 0;
  virtual std::unique_ptr<OptimizerParamState> new_state() const = 0;
  virtual void read_engine_state(const ember::Dict& engine_state,
                                 OptimizerParamState& state) const = 0;
  virtual void write_engine_state(const OptimizerParamState& state,
                                  ember::Dict& engine_state) const = 0;

 private:
  void param_group_added(const OptimizerParamGroup& group) override;
  void state_requested(bool writable) const override;
  // LibTorch's objects into the engine and back (Note [LibTorch optimizers over ember's]).
  void push_groups() const;
  void push_state() const;
  void pull_state() const;
  /// After a step or a load.
  void engine_changed();

  std::unique_ptr<ember::optim::Optimizer> engine_;
  mutable bool state_current_ = false;  // state_ mirrors the engine's state
  // state() gave state_ out for writing: the program may hold its objects and change them, so
  // they are written back before each step and read again after it, from then on.
  mutable bool state_lent_ = false;
};

/// Options: a TypedOptions with EmberOptions; State: a TypedParamState; Engine: ember's
/// optimizer over Options::EmberOptions.
template <class Options, class State, class Engine>
class EmberOptimizer : public EngineOptimizer {
 public:
  EmberOptimizer(std::vector<OptimizerParamGroup> param_groups, const Options& defaults)
      : EngineOptimizer(std::move(param_groups), std::make_unique<Options>(defaults)) {
    std::vector<typename Engine::Group> groups;
    for (const OptimizerParamGroup& g : param_groups_)
      groups.push_back({g.params(), to_ember(typed(g.options()))});
    set_engine(std::make_unique<Engine>(std::move(groups), to_ember(defaults)));
  }
  EmberOptimizer(std::vector<Tensor> params, const Options& defaults)
      : EmberOptimizer(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
                       defaults) {}

 protected:
  ember::Dict engine_options(const OptimizerOptions& options) const override {
    // All as defaults, none as the group's: the keys come in PyTorch's defaults order.
    return ember::optim::resolve_options(typename Options::EmberOptions{},
                                         to_ember(typed(options)));
  }
  void add_engine_group(const OptimizerParamGroup& group) override {
    static_cast<Engine&>(engine()).add_param_group(
        {group.params(), to_ember(typed(group.options()))});
  }
  std::unique_ptr<OptimizerParamState> new_state() const override {
    return std::make_unique<State>();
  }
  void read_engine_state(const ember::Dict& engine_state,
                         OptimizerParamState& state) const override {
    read_state(typed(state), engine_state);
  }
  void write_engine_state(const OptimizerParamState& state,
                          ember::Dict& engine_state) const override {
    write_state(typed(state), engine_state);
  }

 private:
  // A group given another optimizer's options, or a state entry of another type, is the
  // program's mistake; LibTorch's static_cast would not notice it.
  template <class Typed, class Base>
  static Typed& checked(Base& base, const char* what) {
    auto* typed = dynamic_cast<Typed*>(&base);
    if (!typed)
      ember::fail(Options::EmberOptions::kName, "expected ", what, ", got another optimizer's");
    return *typed;
  }
  static const Options& typed(const OptimizerOptions& o) {
    return checked<const Options>(o, "its own options type in every parameter group");
  }
  static const State& typed(const OptimizerParamState& s) {
    return checked<const State>(s, "its own parameter state type in state()");
  }
  static State& typed(OptimizerParamState& s) {
    return checked<State>(s, "its own parameter state type in state()");
  }
};

}  // namespace torch::optim::detail
