// The LR schedules that anneal between two levels, as PyTorch 1.13's: CosineAnnealingLR and
// CosineAnnealingWarmRestarts (cosine, once or restarted), CyclicLR and OneCycleLR (up and down
// again, cycling momentum or Adam's beta1 the other way).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ember/optim/lr_scheduler_base.h"

namespace ember::optim {

struct CosineAnnealingLROptions {
  int64_t T_max = 1;
  double eta_min = 0;
  int64_t last_epoch = -1;
};
/// Cosine annealing from initial_lr to eta_min over T_max, in PyTorch's recursive form (which
/// keeps oscillating past T_max).
class CosineAnnealingLR : public SchedulerWith<CosineAnnealingLROptions> {
 public:
  CosineAnnealingLR(Optimizer& optimizer, CosineAnnealingLROptions options);

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> closed_form_lr() override;
  void settings(SchedulerSettings& s) override;
};

struct CosineAnnealingWarmRestartsOptions {
  int64_t T_0 = 1;
  int64_t T_mult = 1;
  double eta_min = 0;
  int64_t last_epoch = -1;
};
/// SGDR: cosine annealing restarted after T_0, T_0*T_mult, ... epochs; step(epoch) accepts
/// fractional epochs (e.g. epoch + batch / batches).
class CosineAnnealingWarmRestarts : public SchedulerWith<CosineAnnealingWarmRestartsOptions> {
 public:
  CosineAnnealingWarmRestarts(Optimizer& optimizer, CosineAnnealingWarmRestartsOptions options);
  void step() override;
  void step(double epoch) override;
  double T_cur() const { return T_cur_; }

 protected:
  std::vector<double> get_lr() override;
  void settings(SchedulerSettings& s) override;
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
class CyclicLR : public SchedulerWith<CyclicLROptions> {
 public:
  CyclicLR(Optimizer& optimizer, CyclicLROptions options);

 protected:
  std::vector<double> get_lr() override;
  void settings(SchedulerSettings& s) override;
  double scale(double x) const;
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
class OneCycleLR : public SchedulerWith<OneCycleLROptions> {
 public:
  OneCycleLR(Optimizer& optimizer, OneCycleLROptions options);

 protected:
  std::vector<double> get_lr() override;
  void settings(SchedulerSettings& s) override;
  struct Phase {
    double end_step;
    const char *start_lr, *end_lr, *start_momentum, *end_momentum;
  };
  std::vector<Phase> phases_;
  bool use_beta1_ = false;
};

}  // namespace ember::optim
