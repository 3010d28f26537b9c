// The LR schedulers of ember/optim/lr_scheduler.h, transcribing torch/optim/lr_scheduler.py
// (1.13) formula by formula: the recursive get_lr forms for step(), the closed forms for
// step(epoch), Python's floor division and modulo where it uses them. This file: the base, the
// fixed-shape schedules (lambda, step, constant, linear, exponential, polynomial) and the cosine
// ones; lr_scheduler_cyclic.cpp, lr_scheduler_composite.cpp and reduce_lr_on_plateau.cpp the rest.
#include "ember/optim/lr_scheduler.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ember/error.h"
#include "optim/scheduler_values.h"

namespace ember::optim {

using namespace scheduler_detail;


std::vector<double> PerGroup::expand(size_t n, const char* op, const char* what) const {
  if (values.size() == 1) return std::vector<double>(n, values[0]);
  EMBER_CHECK(values.size() == n, op, "expected ", n, " values for ", what, ", got ",
              values.size());
  return values;
}

// ── base ─────────────────────────────────────────────────────────────────
LRScheduler::LRScheduler(Optimizer& optimizer, int64_t last_epoch)
    : optimizer_(&optimizer), last_epoch_(last_epoch) {
  auto& groups = optimizer.param_groups();
  for (size_t i = 0; i < groups.size(); ++i) {
    if (last_epoch == -1) {
      if (!groups[i].has_option("initial_lr"))
        groups[i].options().insert(Value("initial_lr"), Value(groups[i].lr()));
    } else {
      EMBER_CHECK(groups[i].has_option("initial_lr"), "optim.lr_scheduler",
                  "param 'initial_lr' is not specified in param_groups[", i,
                  "] when resuming an optimizer");
    }
    base_lrs_.push_back(groups[i].get("initial_lr"));
  }
}

void LRScheduler::initial_step() {
  step_count_ = 0;
  step();
}

std::vector<double> LRScheduler::group_lrs() const {
  std::vector<double> out;
  for (const ParamGroup& g : optimizer_->param_groups()) out.push_back(g.lr());
  return out;
}

void LRScheduler::apply(const std::vector<double>& lrs) {
  auto& groups = optimizer_->param_groups();
  for (size_t i = 0; i < groups.size() && i < lrs.size(); ++i) groups[i].set_lr(lrs[i]);
  last_lr_ = group_lrs();
}

void LRScheduler::step() {
  ++step_count_;
  ++last_epoch_;
  apply(get_lr());
}

void LRScheduler::step(double epoch) {
  ++step_count_;
  last_epoch_ = int64_t(epoch);
  apply(closed_form_lr());
}

Value LRScheduler::state_dict() const {
  Dict d;
  save_settings(d);
  d.insert(Value("base_lrs"), Value(to_list(base_lrs_)));
  d.insert(Value("last_epoch"), Value(last_epoch_));
  d.insert(Value("verbose"), Value(false));
  d.insert(Value("_step_count"), Value(step_count_));
  d.insert(Value("_get_lr_called_within_step"), Value(false));
  d.insert(Value("_last_lr"), Value(to_list(last_lr_)));
  return Value(std::move(d));
}

void LRScheduler::load_state_dict(const Value& state) {
  const Dict& d = as_dict(state, "optim.lr_scheduler");
  load_settings(d);
  base_lrs_ = doubles(key(d, "base_lrs"));
  last_epoch_ = key(d, "last_epoch").to_int();
  step_count_ = key(d, "_step_count").to_int();
  last_lr_ = doubles(key(d, "_last_lr"));
}

// ── LambdaLR / MultiplicativeLR ─────────────────────────────────────────
namespace {
std::vector<LambdaLR::Lambda> per_group(Optimizer& opt, std::vector<LambdaLR::Lambda> fns,
                                        const char* op) {
  if (fns.size() == 1) fns.resize(opt.param_groups().size(), fns[0]);
  EMBER_CHECK(fns.size() == opt.param_groups().size(), op, "Expected ",
              opt.param_groups().size(), " lr_lambdas, but got ", fns.size());
  for (const auto& f : fns) EMBER_CHECK(bool(f), op, "lr_lambda must be callable");
  return fns;
}
}  // namespace

LambdaLR::LambdaLR(Optimizer& opt, Lambda f, int64_t last_epoch)
    : LambdaLR(opt, std::vector<Lambda>{std::move(f)}, last_epoch) {}

LambdaLR::LambdaLR(Optimizer& opt, std::vector<Lambda> fns, int64_t last_epoch)
    : LRScheduler(opt, last_epoch), lambdas_(per_group(opt, std::move(fns), "optim.LambdaLR")) {
  initial_step();
}

std::vector<double> LambdaLR::get_lr() {
  std::vector<double> out;
  for (size_t i = 0; i < base_lrs_.size(); ++i) out.push_back(base_lrs_[i] * lambdas_[i](last_epoch_));
  return out;
}

MultiplicativeLR::MultiplicativeLR(Optimizer& opt, Lambda f, int64_t last_epoch)
    : MultiplicativeLR(opt, std::vector<Lambda>{std::move(f)}, last_epoch) {}

MultiplicativeLR::MultiplicativeLR(Optimizer& opt, std::vector<Lambda> fns, int64_t last_epoch)
    : LRScheduler(opt, last_epoch),
      lambdas_(per_group(opt, std::move(fns), "optim.MultiplicativeLR")) {
  initial_step();
}

std::vector<double> MultiplicativeLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ > 0)
    for (size_t i = 0; i < lrs.size(); ++i) lrs[i] *= lambdas_[i](last_epoch_);
  return lrs;
}

// ── StepLR / MultiStepLR ────────────────────────────────────────────────
StepLR::StepLR(Optimizer& opt, StepLROptions o) : LRScheduler(opt, o.last_epoch), o_(o) {
  EMBER_CHECK(o.step_size > 0, "optim.StepLR", "step_size must be positive, got ", o.step_size);
  initial_step();
}

std::vector<double> StepLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0 || py_mod(last_epoch_, o_.step_size) != 0) return lrs;
  for (double& lr : lrs) lr *= o_.gamma;
  return lrs;
}

std::vector<double> StepLR::closed_form_lr() {
  std::vector<double> out;
  const int64_t k = last_epoch_ >= 0 ? last_epoch_ / o_.step_size : -1;  // floor division
  for (double b : base_lrs_) out.push_back(b * std::pow(o_.gamma, double(k)));
  return out;
}

void StepLR::save_settings(Dict& d) const {
  d.insert(Value("step_size"), Value(o_.step_size));
  d.insert(Value("gamma"), Value(o_.gamma));
}
void StepLR::load_settings(const Dict& d) {
  o_.step_size = key(d, "step_size").to_int();
  o_.gamma = key(d, "gamma").to_double();
}

MultiStepLR::MultiStepLR(Optimizer& opt, MultiStepLROptions o)
    : LRScheduler(opt, o.last_epoch), o_(std::move(o)) {
  initial_step();
}

std::vector<double> MultiStepLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  const auto hits = std::count(o_.milestones.begin(), o_.milestones.end(), last_epoch_);
  if (hits == 0) return lrs;
  for (double& lr : lrs) lr *= std::pow(o_.gamma, double(hits));
  return lrs;
}

std::vector<double> MultiStepLR::closed_form_lr() {
  std::vector<int64_t> m = o_.milestones;
  std::sort(m.begin(), m.end());
  const auto passed = std::upper_bound(m.begin(), m.end(), last_epoch_) - m.begin();
  std::vector<double> out;
  for (double b : base_lrs_) out.push_back(b * std::pow(o_.gamma, double(passed)));
  return out;
}

void MultiStepLR::save_settings(Dict& d) const {
  // PyTorch keeps a Counter (milestone -> count); a dict of ints is its pickled shape.
  Dict counter;
  for (int64_t m : o_.milestones) {
    const Value k(m);
    counter.insert(k, Value(counter.contains(k) ? counter.at(k).to_int() + 1 : int64_t(1)));
  }
  d.insert(Value("milestones"), Value(std::move(counter)));
  d.insert(Value("gamma"), Value(o_.gamma));
}
void MultiStepLR::load_settings(const Dict& d) {
  o_.milestones.clear();
  for (const auto& [k, n] : key(d, "milestones").to_dict())
    for (int64_t i = 0; i < n.to_int(); ++i) o_.milestones.push_back(k.to_int());
  o_.gamma = key(d, "gamma").to_double();
}

// ── ConstantLR / LinearLR / ExponentialLR / PolynomialLR ────────────────
ConstantLR::ConstantLR(Optimizer& opt, ConstantLROptions o) : LRScheduler(opt, o.last_epoch), o_(o) {
  EMBER_CHECK(o.factor >= 0 && o.factor <= 1, "optim.ConstantLR",
              "Constant multiplicative factor expected to be between 0 and 1, got ", o.factor);
  initial_step();
}

std::vector<double> ConstantLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) {
    for (double& lr : lrs) lr *= o_.factor;
  } else if (last_epoch_ == o_.total_iters) {
    for (double& lr : lrs) lr *= 1.0 / o_.factor;
  }
  return lrs;
}

std::vector<double> ConstantLR::closed_form_lr() {
  std::vector<double> out;
  const double f = o_.factor + double(last_epoch_ >= o_.total_iters) * (1 - o_.factor);
  for (double b : base_lrs_) out.push_back(b * f);
  return out;
}

void ConstantLR::save_settings(Dict& d) const {
  d.insert(Value("factor"), Value(o_.factor));
  d.insert(Value("total_iters"), Value(o_.total_iters));
}
void ConstantLR::load_settings(const Dict& d) {
  o_.factor = key(d, "factor").to_double();
  o_.total_iters = key(d, "total_iters").to_int();
}

LinearLR::LinearLR(Optimizer& opt, LinearLROptions o) : LRScheduler(opt, o.last_epoch), o_(o) {
  EMBER_CHECK(o.start_factor > 0 && o.start_factor <= 1, "optim.LinearLR",
              "Starting multiplicative factor expected to be greater than 0 and less or equal "
              "to 1, got ", o.start_factor);
  EMBER_CHECK(o.end_factor >= 0 && o.end_factor <= 1, "optim.LinearLR",
              "Ending multiplicative factor expected to be between 0 and 1, got ", o.end_factor);
  initial_step();
}

std::vector<double> LinearLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) {
    for (double& lr : lrs) lr *= o_.start_factor;
  } else if (last_epoch_ <= o_.total_iters) {
    const double d = o_.end_factor - o_.start_factor;
    const double f =
        1.0 + d / (double(o_.total_iters) * o_.start_factor + double(last_epoch_ - 1) * d);
    for (double& lr : lrs) lr *= f;
  }
  return lrs;
}

std::vector<double> LinearLR::closed_form_lr() {
  std::vector<double> out;
  for (double b : base_lrs_)
    out.push_back(b * (o_.start_factor + (o_.end_factor - o_.start_factor) *
                                             double(std::min(o_.total_iters, last_epoch_)) /
                                             double(o_.total_iters)));
  return out;
}

void LinearLR::save_settings(Dict& d) const {
  d.insert(Value("start_factor"), Value(o_.start_factor));
  d.insert(Value("end_factor"), Value(o_.end_factor));
  d.insert(Value("total_iters"), Value(o_.total_iters));
}
void LinearLR::load_settings(const Dict& d) {
  o_.start_factor = key(d, "start_factor").to_double();
  o_.end_factor = key(d, "end_factor").to_double();
  o_.total_iters = key(d, "total_iters").to_int();
}

ExponentialLR::ExponentialLR(Optimizer& opt, ExponentialLROptions o)
    : LRScheduler(opt, o.last_epoch), o_(o) {
  initial_step();
}

std::vector<double> ExponentialLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ != 0)
    for (double& lr : lrs) lr *= o_.gamma;
  return lrs;
}

std::vector<double> ExponentialLR::closed_form_lr() {
  std::vector<double> out;
  for (double b : base_lrs_) out.push_back(b * std::pow(o_.gamma, double(last_epoch_)));
  return out;
}

void ExponentialLR::save_settings(Dict& d) const { d.insert(Value("gamma"), Value(o_.gamma)); }
void ExponentialLR::load_settings(const Dict& d) { o_.gamma = key(d, "gamma").to_double(); }

PolynomialLR::PolynomialLR(Optimizer& opt, PolynomialLROptions o)
    : LRScheduler(opt, o.last_epoch), o_(o) {
  EMBER_CHECK(o.total_iters > 0, "optim.PolynomialLR", "total_iters must be positive, got ",
              o.total_iters);
  initial_step();
}

std::vector<double> PolynomialLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0 || last_epoch_ > o_.total_iters) return lrs;
  const double t = double(o_.total_iters);
  const double f = std::pow((1.0 - double(last_epoch_) / t) / (1.0 - double(last_epoch_ - 1) / t),
                            o_.power);
  for (double& lr : lrs) lr *= f;
  return lrs;
}

std::vector<double> PolynomialLR::closed_form_lr() {
  std::vector<double> out;
  for (double b : base_lrs_)
    out.push_back(b * std::pow(1.0 - double(std::min(o_.total_iters, last_epoch_)) /
                                         double(o_.total_iters),
                               o_.power));
  return out;
}

void PolynomialLR::save_settings(Dict& d) const {
  d.insert(Value("total_iters"), Value(o_.total_iters));
  d.insert(Value("power"), Value(o_.power));
}
void PolynomialLR::load_settings(const Dict& d) {
  o_.total_iters = key(d, "total_iters").to_int();
  o_.power = key(d, "power").to_double();
}

// ── cosine ───────────────────────────────────────────────────────────────
CosineAnnealingLR::CosineAnnealingLR(Optimizer& opt, CosineAnnealingLROptions o)
    : LRScheduler(opt, o.last_epoch), o_(o) {
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

void CosineAnnealingLR::save_settings(Dict& d) const {
  d.insert(Value("T_max"), Value(o_.T_max));
  d.insert(Value("eta_min"), Value(o_.eta_min));
}
void CosineAnnealingLR::load_settings(const Dict& d) {
  o_.T_max = key(d, "T_max").to_int();
  o_.eta_min = key(d, "eta_min").to_double();
}

CosineAnnealingWarmRestarts::CosineAnnealingWarmRestarts(Optimizer& opt,
                                                         CosineAnnealingWarmRestartsOptions o)
    : LRScheduler(opt, o.last_epoch), o_(o), T_i_(o.T_0), T_cur_(double(o.last_epoch)) {
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

void CosineAnnealingWarmRestarts::save_settings(Dict& d) const {
  d.insert(Value("T_0"), Value(o_.T_0));
  d.insert(Value("T_i"), Value(T_i_));
  d.insert(Value("T_mult"), Value(o_.T_mult));
  d.insert(Value("eta_min"), Value(o_.eta_min));
  d.insert(Value("T_cur"), Value(T_cur_));
}
void CosineAnnealingWarmRestarts::load_settings(const Dict& d) {
  o_.T_0 = key(d, "T_0").to_int();
  T_i_ = key(d, "T_i").to_int();
  o_.T_mult = key(d, "T_mult").to_int();
  o_.eta_min = key(d, "eta_min").to_double();
  T_cur_ = key(d, "T_cur").to_double();
}

}  // namespace ember::optim
