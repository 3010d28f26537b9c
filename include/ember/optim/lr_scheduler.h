// Learning-rate schedulers, as torch.optim.lr_scheduler 1.13: each one sets its optimizer's
// group lrs on construction (the "initial step") and on every step(), with PyTorch's recursive
// (chainable) formulas, so the LR sequences match PyTorch's to rounding and schedulers compose.
// Groups get "initial_lr" on first use; base_lrs come from it.
//
//   optim::StepLR sched(opt, {.step_size = 30, .gamma = 0.1});
//   for (...) { train(); opt.step(); sched.step(); }   sched.get_last_lr();  // one per group
//   optim::SequentialLR s(opt, {.schedulers = {warm, cosine}, .milestones = {50}});
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "ember/optim/optimizer.h"
#include "ember/value.h"

namespace ember::optim {

/// One value for every group, or a list with one value per group.
struct PerGroup {
  std::vector<double> values;
  PerGroup(double v) : values{v} {}                            // NOLINT
  PerGroup(std::initializer_list<double> v) : values(v) {}     // NOLINT
  PerGroup(std::vector<double> v) : values(std::move(v)) {}    // NOLINT
  /// The value for each of n groups; throws ember::Error naming `what` on a length mismatch.
  std::vector<double> expand(size_t n, const char* op, const char* what) const;
};

class LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;

  /// Advances one epoch/iteration and sets the groups' lrs.
  virtual void step();
  /// PyTorch's deprecated step(epoch): jumps to `epoch`, using the closed form where one exists.
  virtual void step(double epoch);
  /// The lrs the last step set, one per group.
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  const std::vector<double>& base_lrs() const { return base_lrs_; }
  Optimizer& optimizer() const { return *optimizer_; }

  /// Scheduler state as a Dict (PyTorch's attribute names: "base_lrs", "last_epoch",
  /// "_step_count", "_last_lr", and the scheduler's own settings).
  virtual Value state_dict() const;
  virtual void load_state_dict(const Value& state);

 protected:
  /// Records initial_lr (last_epoch == -1) or requires it (resuming), as PyTorch.
  LRScheduler(Optimizer& optimizer, int64_t last_epoch);
  /// Must end every concrete constructor: PyTorch's _initial_step (step_count 0, then step()).
  void initial_step();
  /// The recursive form: new lrs from the groups' current lrs and last_epoch_.
  virtual std::vector<double> get_lr() = 0;
  /// The closed form used by step(epoch); defaults to get_lr().
  virtual std::vector<double> closed_form_lr() { return get_lr(); }
  /// The scheduler's own settings for state_dict (written first, as in PyTorch's __dict__).
  virtual void save_settings(Dict& out) const { (void)out; }
  virtual void load_settings(const Dict& in) { (void)in; }
  void apply(const std::vector<double>& lrs);
  std::vector<double> group_lrs() const;

  Optimizer* optimizer_;
  std::vector<double> base_lrs_;
  int64_t last_epoch_;
  int64_t step_count_ = 0;
  std::vector<double> last_lr_;

  friend class SequentialLR;
};

// ── multiplicative factors ──────────────────────────────────────────────
/// lr = initial_lr * lambda(epoch), one lambda for all groups or one per group.
class LambdaLR : public LRScheduler {
 public:
  using Lambda = std::function<double(int64_t)>;
  LambdaLR(Optimizer& optimizer, Lambda lr_lambda, int64_t last_epoch = -1);
  LambdaLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::vector<Lambda> lambdas_;
};

/// lr *= lambda(epoch) each step after the first.
class MultiplicativeLR : public LRScheduler {
 public:
  using Lambda = std::function<double(int64_t)>;
  MultiplicativeLR(Optimizer& optimizer, Lambda lr_lambda, int64_t last_epoch = -1);
  MultiplicativeLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::vector<Lambda> lambdas_;
};

struct StepLROptions {
  int64_t step_size = 1;
  double gamma = 0.1;
  int64_t last_epoch = -1;
};
/// lr *= gamma every step_size epochs.
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, StepLROptions options);

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> closed_form_lr() override;
  void save_settings(Dict& out) const override;
  void load_settings(const Dict& in) override;
  StepLROptions o_;
};

struct MultiStepLROptions {
  std::vector<int64_t> milestones = {};
  double gamma = 0.1;
  int64_t last_epoch = -1;
};
/// lr *= gamma at each milestone (a repeated milestone applies gamma that many times).
class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, MultiStepLROptions options);

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> closed_form_lr() override;
  void save_settings(Dict& out) const override;
  void load_settings(const Dict& in) override;
  MultiStepLROptions o_;
};

struct ConstantLROptions {
  double factor = 1.0 / 3;
  int64_t total_iters = 5;
  int64_t last_epoch = -1;
};
/// lr * factor until total_iters, then lr.
class ConstantLR : public LRScheduler {
 public:
  ConstantLR(Optimizer& optimizer, ConstantLROptions options = {});

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> closed_form_lr() override;
  void save_settings(Dict& out) const override;
  void load_settings(const Dict& in) override;
  ConstantLROptions o_;
};

struct LinearLROptions {
  double start_factor = 1.0 / 3;
  double end_factor = 1.0;
  int64_t total_iters = 5;
  int64_t last_epoch = -1;
};
/// The factor moves linearly from start_factor to end_factor over total_iters.
class LinearLR : public LRScheduler {
 public:
  LinearLR(Optimizer& optimizer, LinearLROptions options = {});

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> closed_form_lr() override;
  void save_settings(Dict& out) const override;
  void load_settings(const Dict& in) override;
  LinearLROptions o_;
};

struct ExponentialLROptions {
  double gamma = 0.9;
  int64_t last_epoch = -1;
};
/// lr *= gamma every epoch.
class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, ExponentialLROptions options);

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> closed_form_lr() override;
  void save_settings(Dict& out) const override;
  void load_settings(const Dict& in) override;
  ExponentialLROptions o_;
};

struct PolynomialLROptions {
  int64_t total_iters = 5;
  double power = 1.0;
  int64_t last_epoch = -1;
};
/// lr decays as (1 - t / total_iters)^power, then stays.
class PolynomialLR : public LRScheduler {
 public:
  PolynomialLR(Optimizer& optimizer, PolynomialLROptions options = {});

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> closed_form_lr() override;
  void save_settings(Dict& out) const override;
  void load_settings(const Dict& in) override;
  PolynomialLROptions o_;
};

// ── cosine and cyclic ───────────────────────────────────────────────────
struct CosineAnnealingLROptions {
  int64_t T_max = 1;
  double eta_min = 0;
  int64_t last_epoch = -1;
};
/// Cosine annealing from initial_lr to eta_min over T_max, in PyTorch's recursive form (which
/// keeps oscillating past T_max).
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, CosineAnnealingLROptions options);

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> closed_form_lr() override;
  void save_settings(Dict& out) const override;
  void load_settings(const Dict& in) override;
  CosineAnnealingLROptions o_;
};

struct CosineAnnealingWarmRestartsOptions {
  int64_t T_0 = 1;
  int64_t T_mult = 1;
  double eta_min = 0;
  int64_t last_epoch = -1;
};
/// SGDR: cosine annealing restarted after T_0, T_0*T_mult, ... epochs; step(epoch) accepts
/// fractional epochs (e.g. epoch + batch / batches).
class CosineAnnealingWarmRestarts : public LRScheduler {
 public:
  CosineAnnealingWarmRestarts(Optimizer& optimizer, CosineAnnealingWarmRestartsOptions options);
  void step() override;
  void step(double epoch) override;
  double T_cur() const { return T_cur_; }

 protected:
  std::vector<double> get_lr() override;
  void save_settings(Dict& out) const override;
  void load_settings(const Dict& in) override;
  CosineAnnealingWarmRestartsOptions o_;
  int64_t T_i_;
  double T_cur_;
};

struct CyclicLROptions {
  PerGroup base_lr = 0.0;
  PerGroup max_lr = 0.0;
  double step_size_up = 2000;
  std::optional<double> step_size_down = {};  // step_size_up when unset
  std::string mode = "triangular";       // "triangular", "triangular2", "exp_range"
  double gamma = 1.0;
  std::function<double(double)> scale_fn = {};  // replaces mode when set
  std::string scale_mode = "cycle";        // for scale_fn: "cycle" or "iterations"
  bool cycle_momentum = true;
  PerGroup base_momentum = 0.8;
  PerGroup max_momentum = 0.9;
  int64_t last_epoch = -1;
};
/// Cyclical learning rates between base_lr and max_lr (momentum cycled inversely).
class CyclicLR : public LRScheduler {
 public:
  CyclicLR(Optimizer& optimizer, CyclicLROptions options);

 protected:
  std::vector<double> get_lr() override;
  void save_settings(Dict& out) const override;
  void load_settings(const Dict& in) override;
  double scale(double x) const;
  CyclicLROptions o_;
  std::vector<double> max_lrs_, base_momentums_, max_momentums_;
  double total_size_, step_ratio_;
  std::string scale_mode_;
};

struct OneCycleLROptions {
  PerGroup max_lr = 0.0;
  int64_t total_steps = 0;  // or epochs * steps_per_epoch
  int64_t epochs = 0;
  int64_t steps_per_epoch = 0;
  double pct_start = 0.3;
  std::string anneal_strategy = "cos";  // or "linear"
  bool cycle_momentum = true;
  PerGroup base_momentum = 0.85;
  PerGroup max_momentum = 0.95;
  double div_factor = 25.0;
  double final_div_factor = 1e4;
  bool three_phase = false;
  int64_t last_epoch = -1;
};
/// The 1cycle policy: warm up to max_lr, anneal to max_lr / (div_factor * final_div_factor);
/// momentum (or Adam's beta1) cycles the other way. Stepping past total_steps is an error.
class OneCycleLR : public LRScheduler {
 public:
  OneCycleLR(Optimizer& optimizer, OneCycleLROptions options);

 protected:
  std::vector<double> get_lr() override;
  void save_settings(Dict& out) const override;
  void load_settings(const Dict& in) override;
  struct Phase {
    double end_step;
    const char *start_lr, *end_lr, *start_momentum, *end_momentum;
  };
  OneCycleLROptions o_;
  std::vector<Phase> phases_;
  bool use_beta1_ = false;
};

// ── warmup schedules (built in, as Hugging Face's get_*_schedule_with_warmup) ──
struct WarmupCosineLROptions {
  int64_t warmup_steps = 0;
  int64_t total_steps = 1;
  double num_cycles = 0.5;  // half a cosine: initial_lr down to 0
  int64_t last_epoch = -1;
};
/// Linear warmup from 0 over warmup_steps, then cosine decay to 0 at total_steps.
class WarmupCosineLR : public LambdaLR {
 public:
  WarmupCosineLR(Optimizer& optimizer, WarmupCosineLROptions options);
};

struct WarmupLinearLROptions {
  int64_t warmup_steps = 0;
  int64_t total_steps = 1;
  int64_t last_epoch = -1;
};
/// Linear warmup from 0 over warmup_steps, then linear decay to 0 at total_steps.
class WarmupLinearLR : public LambdaLR {
 public:
  WarmupLinearLR(Optimizer& optimizer, WarmupLinearLROptions options);
};

// ── composites ───────────────────────────────────────────────────────────
using SchedulerRef = std::reference_wrapper<LRScheduler>;

struct SequentialLROptions {
  std::vector<SchedulerRef> schedulers = {};  // by reference: they must outlive this scheduler
  std::vector<int64_t> milestones = {};
  int64_t last_epoch = -1;
};
/// Runs schedulers[i] between milestones[i-1] and milestones[i] (restarting each at 0).
class SequentialLR : public LRScheduler {
 public:
  SequentialLR(Optimizer& optimizer, SequentialLROptions options);
  void step() override;
  void step(double epoch) override;
  Value state_dict() const override;
  void load_state_dict(const Value& state) override;

 protected:
  std::vector<double> get_lr() override;
  SequentialLROptions o_;
};

/// Steps every scheduler each step (their factors multiply).
class ChainedScheduler : public LRScheduler {
 public:
  explicit ChainedScheduler(std::vector<SchedulerRef> schedulers);
  void step() override;
  void step(double epoch) override;
  Value state_dict() const override;
  void load_state_dict(const Value& state) override;

 protected:
  std::vector<double> get_lr() override;
  std::vector<SchedulerRef> schedulers_;
};

// ── on a metric ─────────────────────────────────────────────────────────
struct ReduceLROnPlateauOptions {
  std::string mode = "min";  // or "max"
  double factor = 0.1;
  int64_t patience = 10;
  double threshold = 1e-4;
  std::string threshold_mode = "rel";  // or "abs"
  int64_t cooldown = 0;
  PerGroup min_lr = 0.0;
  double eps = 1e-8;
};
/// Multiplies lrs by factor after `patience` steps without improvement of the metric.
class ReduceLROnPlateau {
 public:
  ReduceLROnPlateau(Optimizer& optimizer, ReduceLROnPlateauOptions options = {});
  void step(double metric);
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  int64_t num_bad_epochs() const { return num_bad_epochs_; }
  double best() const { return best_; }
  Value state_dict() const;
  void load_state_dict(const Value& state);

 private:
  bool is_better(double a, double best) const;
  Optimizer* optimizer_;
  ReduceLROnPlateauOptions o_;
  std::vector<double> min_lrs_;
  double best_;
  int64_t num_bad_epochs_ = 0, cooldown_counter_ = 0, last_epoch_ = 0;
  std::vector<double> last_lr_;
};

}  // namespace ember::optim
