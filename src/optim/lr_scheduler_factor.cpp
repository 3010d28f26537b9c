// The fixed-shape factor schedules (lr_scheduler_factor.h), transcribing
// torch/optim/lr_scheduler.py (1.13) formula by formula: the recursive get_lr forms for step(),
// the closed forms for step(epoch), Python's floor division and modulo where it uses them; each
// settings() list is PyTorch's attributes in its __dict__ order.
#include "ember/optim/lr_scheduler_factor.h"

#include <algorithm>
#include <cmath>

#include "ember/error.h"
#include "optim/scheduler_settings.h"
#include "optim/scheduler_values.h"

namespace ember::optim {

using namespace scheduler_detail;

// ── StepLR / MultiStepLR ────────────────────────────────────────────────
StepLR::StepLR(Optimizer& opt, StepLROptions o) : SchedulerWith(opt, o) {
  EMBER_CHECK(o.step_size > 0, "optim.StepLR", "step_size must be positive, got ", o.step_size);
  initial_step();
}

std::vector<double> StepLR::get_lr() {
  if (last_epoch_ == 0 || py_mod(last_epoch_, o_.step_size) != 0) return group_lrs();
  return scaled(group_lrs(), o_.gamma);
}

std::vector<double> StepLR::closed_form_lr() {
  const int64_t k = last_epoch_ >= 0 ? last_epoch_ / o_.step_size : -1;  // floor division
  return scaled(base_lrs_, std::pow(o_.gamma, double(k)));
}

void StepLR::settings(SchedulerSettings& s) { s("step_size", o_.step_size)("gamma", o_.gamma); }

MultiStepLR::MultiStepLR(Optimizer& opt, MultiStepLROptions o) : SchedulerWith(opt, o) {
  initial_step();
}

std::vector<double> MultiStepLR::get_lr() {
  const auto hits = std::count(o_.milestones.begin(), o_.milestones.end(), last_epoch_);
  if (hits == 0) return group_lrs();
  return scaled(group_lrs(), std::pow(o_.gamma, double(hits)));
}

std::vector<double> MultiStepLR::closed_form_lr() {
  std::vector<int64_t> m = o_.milestones;
  std::sort(m.begin(), m.end());
  const auto passed = std::upper_bound(m.begin(), m.end(), last_epoch_) - m.begin();
  return scaled(base_lrs_, std::pow(o_.gamma, double(passed)));
}

void MultiStepLR::settings(SchedulerSettings& s) {
  s.counter("milestones", o_.milestones)("gamma", o_.gamma);
}

// ── ConstantLR / LinearLR ────────────────────────────────────────────────
ConstantLR::ConstantLR(Optimizer& opt, ConstantLROptions o) : SchedulerWith(opt, o) {
  EMBER_CHECK(o.factor >= 0 && o.factor <= 1, "optim.ConstantLR",
              "Constant multiplicative factor expected to be between 0 and 1, got ", o.factor);
  initial_step();
}

std::vector<double> ConstantLR::get_lr() {
  if (last_epoch_ == 0) return scaled(group_lrs(), o_.factor);
  if (last_epoch_ == o_.total_iters) return scaled(group_lrs(), 1.0 / o_.factor);
  return group_lrs();
}

std::vector<double> ConstantLR::closed_form_lr() {
  return scaled(base_lrs_, o_.factor + double(last_epoch_ >= o_.total_iters) * (1 - o_.factor));
}

void ConstantLR::settings(SchedulerSettings& s) {
  s("factor", o_.factor)("total_iters", o_.total_iters);
}

LinearLR::LinearLR(Optimizer& opt, LinearLROptions o) : SchedulerWith(opt, o) {
  EMBER_CHECK(o.start_factor > 0 && o.start_factor <= 1, "optim.LinearLR",
              "Starting multiplicative factor expected to be greater than 0 and less or equal "
              "to 1, got ", o.start_factor);
  EMBER_CHECK(o.end_factor >= 0 && o.end_factor <= 1, "optim.LinearLR",
              "Ending multiplicative factor expected to be between 0 and 1, got ", o.end_factor);
  initial_step();
}

std::vector<double> LinearLR::get_lr() {
  if (last_epoch_ == 0) return scaled(group_lrs(), o_.start_factor);
  if (last_epoch_ > o_.total_iters) return group_lrs();
  const double d = o_.end_factor - o_.start_factor;
  return scaled(group_lrs(),
                1.0 + d / (double(o_.total_iters) * o_.start_factor + double(last_epoch_ - 1) * d));
}

std::vector<double> LinearLR::closed_form_lr() {
  return scaled(base_lrs_, o_.start_factor + (o_.end_factor - o_.start_factor) *
                                                 double(std::min(o_.total_iters, last_epoch_)) /
                                                 double(o_.total_iters));
}

void LinearLR::settings(SchedulerSettings& s) {
  s("start_factor", o_.start_factor)("end_factor", o_.end_factor)("total_iters", o_.total_iters);
}

// ── ExponentialLR / PolynomialLR ─────────────────────────────────────────
ExponentialLR::ExponentialLR(Optimizer& opt, ExponentialLROptions o) : SchedulerWith(opt, o) {
  initial_step();
}

std::vector<double> ExponentialLR::get_lr() {
  return last_epoch_ == 0 ? group_lrs() : scaled(group_lrs(), o_.gamma);
}

std::vector<double> ExponentialLR::closed_form_lr() {
  return scaled(base_lrs_, std::pow(o_.gamma, double(last_epoch_)));
}

void ExponentialLR::settings(SchedulerSettings& s) { s("gamma", o_.gamma); }

PolynomialLR::PolynomialLR(Optimizer& opt, PolynomialLROptions o) : SchedulerWith(opt, o) {
  EMBER_CHECK(o.total_iters > 0, "optim.PolynomialLR", "total_iters must be positive, got ",
              o.total_iters);
  initial_step();
}

std::vector<double> PolynomialLR::get_lr() {
  if (last_epoch_ == 0 || last_epoch_ > o_.total_iters) return group_lrs();
  const double t = double(o_.total_iters);
  return scaled(group_lrs(), std::pow((1.0 - double(last_epoch_) / t) /
                                          (1.0 - double(last_epoch_ - 1) / t),
                                      o_.power));
}

std::vector<double> PolynomialLR::closed_form_lr() {
  return scaled(base_lrs_, std::pow(1.0 - double(std::min(o_.total_iters, last_epoch_)) /
                                              double(o_.total_iters),
                                    o_.power));
}

void PolynomialLR::settings(SchedulerSettings& s) {
  s("total_iters", o_.total_iters)("power", o_.power);
}

}  // namespace ember::optim
