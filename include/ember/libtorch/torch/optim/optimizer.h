// LibTorch's optimizer base, as torch/optim/optimizer.h of LibTorch 1.13: parameter groups that
// own a typed options object (OptimizerParamGroup, OptimizerOptions with get_lr/set_lr), typed
// per-parameter state keyed by the parameter's TensorImpl address, zero_grad() that zeroes, and
// step(closure) for each optimizer to define. A program's own optimizer derives from it as from
// LibTorch's (param_groups_, state_, defaults_ are there); torch::optim's optimizers are ember's
// underneath (torch/optim/detail/ember_optimizer.h).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "torch/types.h"

namespace torch::serialize {
class OutputArchive;
class InputArchive;
}  // namespace torch::serialize

namespace torch::optim {

/// One parameter's state (SGDParamState, AdamParamState, ...).
class OptimizerParamState {
 public:
  virtual ~OptimizerParamState() = default;
  virtual std::unique_ptr<OptimizerParamState> clone() const;
  virtual void serialize(serialize::InputArchive& archive);
  virtual void serialize(serialize::OutputArchive& archive) const;
};

template <class Derived>
class OptimizerCloneableParamState : public OptimizerParamState {
 public:
  std::unique_ptr<OptimizerParamState> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

/// A group's options (SGDOptions, AdamOptions, ...); get_lr/set_lr reach the learning rate
/// whatever the optimizer, which is what LRScheduler uses.
class OptimizerOptions {
 public:
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const;
  virtual void serialize(serialize::InputArchive& archive);
  virtual void serialize(serialize::OutputArchive& archive) const;
  virtual double get_lr() const;
  virtual void set_lr(const double lr);
};

template <class Derived>
class OptimizerCloneableOptions : public OptimizerOptions {
 public:
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

/// Parameters and the options they are optimized with (none until the optimizer gives them its
/// defaults). Copies clone the options.
class OptimizerParamGroup {
 public:
  OptimizerParamGroup(const OptimizerParamGroup& other);
  OptimizerParamGroup(OptimizerParamGroup&&) = default;
  OptimizerParamGroup& operator=(const OptimizerParamGroup& other);
  OptimizerParamGroup& operator=(OptimizerParamGroup&&) = default;
  OptimizerParamGroup(std::vector<Tensor> params)  // NOLINT: implicit, as LibTorch's
      : params_(std::move(params)) {}
  OptimizerParamGroup(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> options)
      : params_(std::move(params)), options_(std::move(options)) {}

  bool has_options() const { return options_ != nullptr; }
  /// Throws ember::Error when the group has no options.
  OptimizerOptions& options();
  const OptimizerOptions& options() const;
  void set_options(std::unique_ptr<OptimizerOptions> options) { options_ = std::move(options); }
  std::vector<Tensor>& params() { return params_; }
  const std::vector<Tensor>& params() const { return params_; }

 protected:
  std::vector<Tensor> params_;
  std::unique_ptr<OptimizerOptions> options_;
};

/// LibTorch's spelling of the state map (ska::flat_hash_map there).
using OptimizerState = std::unordered_map<std::string, std::unique_ptr<OptimizerParamState>>;

class Optimizer {
 public:
  using LossClosure = std::function<Tensor()>;

  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  Optimizer(Optimizer&&) = default;
  virtual ~Optimizer() = default;
  /// Groups without options get a copy of `defaults`.
  explicit Optimizer(std::vector<OptimizerParamGroup> param_groups,
                     std::unique_ptr<OptimizerOptions> defaults);
  explicit Optimizer(std::vector<Tensor> parameters, std::unique_ptr<OptimizerOptions> defaults);

  /// Appends a group (its options copied, or the defaults when it has none); a parameter may
  /// belong to one group only, and must be a leaf.
  void add_param_group(const OptimizerParamGroup& param_group);
  /// Appends parameters to the first group (LibTorch's deprecated spelling).
  void add_parameters(const std::vector<Tensor>& parameters);

  virtual Tensor step(LossClosure closure = nullptr) = 0;
  /// Zeroes every parameter's gradient in place (LibTorch 1.13); set_to_none (LibTorch 2's
  /// argument) resets them to undefined instead.
  void zero_grad(bool set_to_none = false);

  /// The first group's parameters.
  const std::vector<Tensor>& parameters() const;
  std::vector<Tensor>& parameters();
  /// The number of parameters over all groups.
  size_t size() const noexcept;
  OptimizerOptions& defaults() noexcept { return *defaults_; }
  const OptimizerOptions& defaults() const noexcept { return *defaults_; }
  std::vector<OptimizerParamGroup>& param_groups() noexcept { return param_groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const noexcept { return param_groups_; }
  /// Per-parameter state by detail::state_key(parameter).
  OptimizerState& state();
  const OptimizerState& state() const;

  /// Writes / reads the optimizer's state as PyTorch's optimizer.state_dict() ("state",
  /// "param_groups"); torch::save(optimizer, ...) and torch::load(optimizer, ...) call them.
  /// The base has none to write and says so.
  virtual void save(serialize::OutputArchive& archive) const;
  virtual void load(serialize::InputArchive& archive);

 protected:
  /// Called by add_param_group once the group is in param_groups_ (not during this base's
  /// constructor), for an optimizer that mirrors its groups elsewhere.
  virtual void param_group_added(const OptimizerParamGroup& group) { (void)group; }
  /// Called by state() before it returns state_, for an optimizer that keeps its state elsewhere
  /// (`writable`: the caller may change it).
  virtual void state_requested(bool writable) const { (void)writable; }

  std::vector<OptimizerParamGroup> param_groups_;
  OptimizerState state_;
  std::unique_ptr<OptimizerOptions> defaults_;
};

namespace detail {
/// The state map's key for `param`: its TensorImpl's address as text, as LibTorch's
/// c10::guts::to_string(p.unsafeGetTensorImpl()).
std::string state_key(const Tensor& param);
}  // namespace detail

serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const Optimizer& optimizer);
serialize::InputArchive& operator>>(serialize::InputArchive& archive, Optimizer& optimizer);

}  // namespace torch::optim
