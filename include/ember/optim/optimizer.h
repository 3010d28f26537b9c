// Optimizer: the base every optimizer shares — parameter groups with per-group options, per-
// parameter state, zero_grad, step(closure), and state_dict/load_state_dict in PyTorch's
// structure: {"state": {index: {...}}, "param_groups": [{"lr": ..., ..., "params": [index...]}]}.
//
//   optim::SGD opt({{w_params, {.lr = 0.1}}, {b_params, {.lr = 0.05}}}, {.momentum = 0.9});
//   opt.zero_grad(); loss.backward(); opt.step();
//   opt.param_groups()[1].lr();   // 0.05; schedulers call set_lr()
//
// Options resolve per field: the group's value when given, else the optimizer's defaults, else
// PyTorch's default. Every field is a Setting<T> so "not given" is distinct from any value.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/tensor.h"
#include "ember/value.h"

namespace ember::optim {

/// An option that may be left unset: `.lr = 0.1`, `.betas = {0.9, 0.999}`, or nothing.
template <class T>
class Setting {
 public:
  Setting() = default;
  Setting(T v) : value_(std::move(v)), set_(true) {}  // NOLINT: implicit, for designated init
  /// `.line_search_fn = "strong_wolfe"`: a value that converts to T (one conversion, not two).
  template <class U>
    requires(std::is_convertible_v<U, T> && !std::is_same_v<std::decay_t<U>, T>)
  Setting(U&& v) : value_(std::forward<U>(v)), set_(true) {}  // NOLINT: implicit, as above
  template <class A, class B>
    requires std::is_constructible_v<T, A, B>
  Setting(A a, B b) : value_(a, b), set_(true) {}  // NOLINT: `.betas = {0.9, 0.999}`
  bool has_value() const { return set_; }
  const T& value() const { return value_; }
  /// LibTorch's builder, AdamOptions(1e-3).betas(...), stops the build naming ember's spelling.
  template <class... Args>
  auto operator()(Args&&...) const {  // `auto`: the assertion comes before any other error
    static_assert(sizeof...(Args) > 1000,
                  "ember's optimizer options are structs, not LibTorch's builders: write "
                  "optim::Adam(params, {.lr = 2e-4, .betas = {0.5, 0.999}}) or "
                  "optim::SGD(params, {.lr = 0.01, .momentum = 0.9})");
    return *this;
  }

 private:
  T value_{};
  bool set_ = false;
};

using Betas = std::pair<double, double>;

/// One parameter group: its tensors and its options (PyTorch's group dict, minus "params").
class ParamGroup {
 public:
  ParamGroup(std::vector<Tensor> params, Dict options)
      : params_(std::move(params)), options_(std::move(options)) {}
  std::vector<Tensor>& params() { return params_; }
  const std::vector<Tensor>& params() const { return params_; }
  /// The group's options in PyTorch's key order; schedulers add keys such as "initial_lr".
  Dict& options() { return options_; }
  const Dict& options() const { return options_; }
  double lr() const;
  void set_lr(double lr);
  bool has_option(const std::string& key) const { return options_.contains(Value(key)); }
  /// An option as a double (ints convert); throws ember::Error naming an absent key.
  double get(const std::string& key) const;
  bool get_bool(const std::string& key) const;
  Betas get_betas(const std::string& key = "betas") const;

 private:
  std::vector<Tensor> params_;
  Dict options_;
};

struct ZeroGradOptions {
  bool set_to_none = true;
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  std::vector<ParamGroup>& param_groups() { return groups_; }
  const std::vector<ParamGroup>& param_groups() const { return groups_; }

  /// Resets every parameter's grad: to undefined (set_to_none), else to zeros in place.
  void zero_grad(ZeroGradOptions options = {});
  /// Runs closure (with grad enabled) when given, then updates every parameter that has a grad.
  /// Returns the closure's loss, or an undefined tensor without one.
  Tensor step(const std::function<Tensor()>& closure = nullptr);

  /// The state of parameter p (empty until its first step).
  Dict& state(const Tensor& p);
  /// {"state": {index: Dict}, "param_groups": [Dict with "params": [index...]]}; tensors shared.
  Value state_dict() const;
  /// Restores state_dict() output (copied: tensors are cloned, cast to each parameter's dtype
  /// except "step"); group and parameter counts must match.
  void load_state_dict(const Value& state_dict);

  /// The optimizer's name in error messages, e.g. "optim.Adam".
  const char* name() const { return name_; }

 protected:
  explicit Optimizer(const char* name) : name_(name) {}
  /// Appends a group whose options are already resolved (PyTorch's key order).
  void add_group(std::vector<Tensor> params, Dict options);
  /// Updates the group's parameters that have a grad (called under NoGradGuard).
  virtual void update(ParamGroup& group) = 0;
  /// What step() does inside its profiler range: the closure, then update() per group. LBFGS,
  /// which evaluates the closure many times per step, replaces it.
  virtual Tensor run_step(const std::function<Tensor()>& closure);

 private:
  const char* name_;
  std::vector<ParamGroup> groups_;
  std::unordered_map<const TensorImpl*, Dict> state_;
};

/// The typed front end of an optimizer with options struct O: the two constructors (parameter
/// list, or groups + defaults) and add_param_group. resolve_options(group, defaults) is
/// declared next to each options struct, whose static kName names the optimizer.
template <class O>
class OptimizerWith : public Optimizer {
 public:
  struct Group {
    std::vector<Tensor> params;
    O options = {};
  };
  explicit OptimizerWith(std::vector<Tensor> params, O defaults = {})
      : Optimizer(O::kName), defaults_(defaults) {
    add_param_group({std::move(params), O{}});
  }
  /// LibTorch's optim::SGD(params, /*lr=*/0.01): the learning rate alone.
  OptimizerWith(std::vector<Tensor> params, double lr)
      : OptimizerWith(std::move(params), O{.lr = lr}) {}
  explicit OptimizerWith(std::vector<Group> groups, O defaults = {})
      : Optimizer(O::kName), defaults_(defaults) {
    for (Group& g : groups) add_param_group(std::move(g));
  }
  /// Adds a group (e.g. unfrozen layers); options it leaves unset come from the defaults.
  void add_param_group(Group group) {
    add_group(std::move(group.params), resolve_options(group.options, defaults_));
  }
  const O& defaults() const { return defaults_; }

 private:
  O defaults_;
};

}  // namespace ember::optim
