// The LR schedules that multiply the lr by a fixed-shape factor of the epoch, as PyTorch 1.13's:
// StepLR, MultiStepLR, ConstantLR, LinearLR, ExponentialLR, PolynomialLR. Each has PyTorch's
// recursive form (step()) and closed form (step(epoch)).
#pragma once

#include <cstdint>
#include <vector>

#include "ember/optim/lr_scheduler_base.h"

namespace ember::optim {

struct StepLROptions {
  int64_t step_size = 1;
  double gamma = 0.1;
  int64_t last_epoch = -1;
};
/// lr *= gamma every step_size epochs.
class StepLR : public SchedulerWith<StepLROptions> {
 public:
  StepLR(Optimizer& optimizer, StepLROptions options);

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> closed_form_lr() override;
  void settings(SchedulerSettings& s) override;
};

struct MultiStepLROptions {
  std::vector<int64_t> milestones = {};
  double gamma = 0.1;
  int64_t last_epoch = -1;
};
/// lr *= gamma at each milestone (a repeated milestone applies gamma that many times).
class MultiStepLR : public SchedulerWith<MultiStepLROptions> {
 public:
  MultiStepLR(Optimizer& optimizer, MultiStepLROptions options);

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> closed_form_lr() override;
  void settings(SchedulerSettings& s) override;
};

struct ConstantLROptions {
  double factor = 1.0 / 3;
  int64_t total_iters = 5;
  int64_t last_epoch = -1;
};
/// lr * factor until total_iters, then lr.
class ConstantLR : public SchedulerWith<ConstantLROptions> {
 public:
  ConstantLR(Optimizer& optimizer, ConstantLROptions options = {});

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> closed_form_lr() override;
  void settings(SchedulerSettings& s) override;
};

struct LinearLROptions {
  double start_factor = 1.0 / 3;
  double end_factor = 1.0;
  int64_t total_iters = 5;
  int64_t last_epoch = -1;
};
/// The factor moves linearly from start_factor to end_factor over total_iters.
class LinearLR : public SchedulerWith<LinearLROptions> {
 public:
  LinearLR(Optimizer& optimizer, LinearLROptions options = {});

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> closed_form_lr() override;
  void settings(SchedulerSettings& s) override;
};

struct ExponentialLROptions {
  double gamma = 0.9;
  int64_t last_epoch = -1;
};
/// lr *= gamma every epoch.
class ExponentialLR : public SchedulerWith<ExponentialLROptions> {
 public:
  ExponentialLR(Optimizer& optimizer, ExponentialLROptions options);

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> closed_form_lr() override;
  void settings(SchedulerSettings& s) override;
};

struct PolynomialLROptions {
  int64_t total_iters = 5;
  double power = 1.0;
  int64_t last_epoch = -1;
};
/// lr decays as (1 - t / total_iters)^power, then stays.
class PolynomialLR : public SchedulerWith<PolynomialLROptions> {
 public:
  PolynomialLR(Optimizer& optimizer, PolynomialLROptions options = {});

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> closed_form_lr() override;
  void settings(SchedulerSettings& s) override;
};

}  // namespace ember::optim
