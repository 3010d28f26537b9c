// The cosine schedules of lr_scheduler_annealing.h (transcribing PyTorch 1.13's formulas, as
// lr_scheduler_factor.cpp): CosineAnnealingLR and CosineAnnealingWarmRestarts (SGDR).
#include <cmath>

#include "ember/error.h"
#include "ember/optim/lr_scheduler_annealing.h"
#include "optim/scheduler_settings.h"
#include "optim/scheduler_values.h"

namespace ember::optim {

using namespace scheduler_detail;

// ── CosineAnnealingLR ────────────────────────────────────────────────────
CosineAnnealingLR::CosineAnnealingLR(Optimizer& opt, CosineAnnealingLROptions o)
    : SchedulerWith(opt, o) {
  EMBER_CHECK(o.T_max > 0, "optim.CosineAnnealingLR", "T_max must be positive, got ", o.T_max);
  initial_step();
}

std::vector<double> CosineAnnealingLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  const double T = double(o_.T_max), e = double(last_epoch_), eta = o_.eta_min;
  if (last_epoch_ == 0) return lrs;
  if (step_count_ == 1 && last_epoch_ > 0) return closed_form_lr();  // resumed: no recursion yet
  if (py_mod(last_epoch_ - 1 - o_.T_max, 2 * o_.T_max) == 0) {
    // The bottom of a period: the ratio below would divide by 1 + cos(pi) = 0.
    for (size_t i = 0; i < lrs.size(); ++i)
      lrs[i] = lrs[i] + (base_lrs_[i] - eta) * (1 - std::cos(kPi / T)) / 2;
    return lrs;
  }
  for (double& lr : lrs)
    lr = (1 + std::cos(kPi * e / T)) / (1 + std::cos(kPi * (e - 1) / T)) * (lr - eta) + eta;
  return lrs;
}

std::vector<double> CosineAnnealingLR::closed_form_lr() {
  std::vector<double> out;
  for (double b : base_lrs_)
    out.push_back(o_.eta_min + (b - o_.eta_min) *
                                   (1 + std::cos(kPi * double(last_epoch_) / double(o_.T_max))) / 2);
  return out;
}

void CosineAnnealingLR::settings(SchedulerSettings& s) {
  s("T_max", o_.T_max)("eta_min", o_.eta_min);
}

// ── CosineAnnealingWarmRestarts ──────────────────────────────────────────
CosineAnnealingWarmRestarts::CosineAnnealingWarmRestarts(Optimizer& opt,
                                                         CosineAnnealingWarmRestartsOptions o)
    : SchedulerWith(opt, o), T_i_(o.T_0), T_cur_(double(o.last_epoch)) {
  EMBER_CHECK(o.T_0 > 0, "optim.CosineAnnealingWarmRestarts",
              "Expected positive integer T_0, but got ", o.T_0);
  EMBER_CHECK(o.T_mult >= 1, "optim.CosineAnnealingWarmRestarts",
              "Expected integer T_mult >= 1, but got ", o.T_mult);
  initial_step();
}

std::vector<double> CosineAnnealingWarmRestarts::get_lr() {
  std::vector<double> out;
  for (double b : base_lrs_)
    out.push_back(o_.eta_min +
                  (b - o_.eta_min) * (1 + std::cos(kPi * T_cur_ / double(T_i_))) / 2);
  return out;
}

void CosineAnnealingWarmRestarts::step() {
  if (last_epoch_ < 0) return step(0.0);
  last_epoch_ += 1;
  T_cur_ = T_cur_ + 1;
  if (T_cur_ >= double(T_i_)) {
    T_cur_ = T_cur_ - double(T_i_);
    T_i_ = T_i_ * o_.T_mult;
  }
  apply(get_lr());
}

void CosineAnnealingWarmRestarts::step(double epoch) {
  EMBER_CHECK(epoch >= 0, "optim.CosineAnnealingWarmRestarts",
              "Expected non-negative epoch, but got ", epoch);
  const double T0 = double(o_.T_0), Tm = double(o_.T_mult);
  if (epoch >= T0) {
    if (o_.T_mult == 1) {
      T_cur_ = std::fmod(epoch, T0);
    } else {
      // Which restart period epoch falls in: T_0 * (T_mult^n - 1) / (T_mult - 1) <= epoch.
      const int64_t n = int64_t(std::log(epoch / T0 * (Tm - 1) + 1) / std::log(Tm));
      T_cur_ = epoch - T0 * (std::pow(Tm, double(n)) - 1) / (Tm - 1);
      T_i_ = o_.T_0 * int64_t(std::llround(std::pow(Tm, double(n))));
    }
  } else {
    T_i_ = o_.T_0;
    T_cur_ = epoch;
  }
  last_epoch_ = int64_t(std::floor(epoch));
  apply(get_lr());
}

void CosineAnnealingWarmRestarts::settings(SchedulerSettings& s) {
  s("T_0", o_.T_0)("T_i", T_i_)("T_mult", o_.T_mult)("eta_min", o_.eta_min)("T_cur", T_cur_);
}

}  // namespace ember::optim
