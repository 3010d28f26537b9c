// The LR schedulers of ember/optim/lr_scheduler.h, transcribing torch/optim/lr_scheduler.py
// (1.13) formula by formula: the recursive get_lr forms for step(), the closed forms for
// step(epoch), Python's floor division and modulo where it uses them.
#include "ember/optim/lr_scheduler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "ember/error.h"

namespace ember::optim {

namespace {

constexpr double kPi = std::numbers::pi;

int64_t py_mod(int64_t a, int64_t b) {  // Python's %: the sign of the divisor
  const int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

List to_list(const std::vector<double>& v) {
  List out;
  for (double x : v) out.emplace_back(x);
  return out;
}

std::vector<double> doubles(const Value& v) {
  std::vector<double> out;
  for (const Value& x : v.to_list()) out.push_back(x.to_double());
  return out;
}

const Dict& as_dict(const Value& v, const char* op) {
  EMBER_CHECK(v.is_dict(), op, "load_state_dict expects a Dict, got ", v.kind_name());
  return v.to_dict();
}

const Value& key(const Dict& d, const char* k) { return d.at(Value(k)); }

}  // namespace

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

// ── CyclicLR ─────────────────────────────────────────────────────────────
CyclicLR::CyclicLR(Optimizer& opt, CyclicLROptions o)
    : LRScheduler((
          [&]() -> Optimizer& {
            // PyTorch sets the groups' lr to base_lr before recording initial_lr.
            const auto base = o.base_lr.expand(opt.param_groups().size(), "optim.CyclicLR",
                                               "base_lr");
            if (o.last_epoch == -1)
              for (size_t i = 0; i < base.size(); ++i) opt.param_groups()[i].set_lr(base[i]);
            return opt;
          }()),
          o.last_epoch),
      o_(std::move(o)) {
  const char* op = "optim.CyclicLR";
  const size_t n = opt.param_groups().size();
  max_lrs_ = o_.max_lr.expand(n, op, "max_lr");
  const double up = o_.step_size_up, down = o_.step_size_down.value_or(up);
  total_size_ = up + down;
  step_ratio_ = up / total_size_;
  EMBER_CHECK(o_.scale_fn || o_.mode == "triangular" || o_.mode == "triangular2" ||
                  o_.mode == "exp_range",
              op, "mode is invalid and scale_fn is None (mode '", o_.mode, "')");
  scale_mode_ = o_.scale_fn ? o_.scale_mode : o_.mode == "exp_range" ? "iterations" : "cycle";
  if (o_.cycle_momentum) {
    for (const ParamGroup& g : opt.param_groups())
      EMBER_CHECK(g.has_option("momentum"), op,
                  "optimizer must support momentum with `cycle_momentum` option enabled");
    const auto base_m = o_.base_momentum.expand(n, op, "base_momentum");
    if (o_.last_epoch == -1)
      for (size_t i = 0; i < n; ++i)
        opt.param_groups()[i].options().insert(Value("momentum"), Value(base_m[i]));
    for (const ParamGroup& g : opt.param_groups()) base_momentums_.push_back(g.get("momentum"));
    max_momentums_ = o_.max_momentum.expand(n, op, "max_momentum");
  }
  initial_step();
  base_lrs_ = o_.base_lr.expand(n, op, "base_lr");
}

double CyclicLR::scale(double x) const {
  if (o_.scale_fn) return o_.scale_fn(x);
  if (o_.mode == "triangular") return 1.0;
  if (o_.mode == "triangular2") return 1 / std::pow(2.0, x - 1);
  return std::pow(o_.gamma, x);
}

std::vector<double> CyclicLR::get_lr() {
  const double e = double(last_epoch_);
  const double cycle = std::floor(1 + e / total_size_);
  const double x = 1.0 + e / total_size_ - cycle;
  const double scale_factor = x <= step_ratio_ ? x / step_ratio_ : (x - 1) / (step_ratio_ - 1);
  const double s = scale(scale_mode_ == "cycle" ? cycle : e);
  // The constructor's initial step runs before base_lrs_ holds base_lr (as in PyTorch, where
  // super().__init__ steps first): it reads the groups' lrs, which were just set to base_lr.
  std::vector<double> out;
  for (size_t i = 0; i < max_lrs_.size(); ++i) {
    const double base = base_lrs_[i];
    out.push_back(base + (max_lrs_[i] - base) * scale_factor * s);
  }
  if (o_.cycle_momentum) {
    auto& groups = optimizer_->param_groups();
    for (size_t i = 0; i < groups.size(); ++i) {
      const double height = (max_momentums_[i] - base_momentums_[i]) * scale_factor;
      groups[i].options().insert(Value("momentum"), Value(max_momentums_[i] - height * s));
    }
  }
  return out;
}

void CyclicLR::save_settings(Dict& d) const {
  d.insert(Value("max_lrs"), Value(to_list(max_lrs_)));
  d.insert(Value("total_size"), Value(total_size_));
  d.insert(Value("step_ratio"), Value(step_ratio_));
  d.insert(Value("mode"), Value(o_.mode));
  d.insert(Value("gamma"), Value(o_.gamma));
  d.insert(Value("scale_mode"), Value(scale_mode_));
  d.insert(Value("cycle_momentum"), Value(o_.cycle_momentum));
  if (o_.cycle_momentum) {
    d.insert(Value("base_momentums"), Value(to_list(base_momentums_)));
    d.insert(Value("max_momentums"), Value(to_list(max_momentums_)));
  }
}
void CyclicLR::load_settings(const Dict& d) {
  max_lrs_ = doubles(key(d, "max_lrs"));
  total_size_ = key(d, "total_size").to_double();
  step_ratio_ = key(d, "step_ratio").to_double();
  o_.mode = key(d, "mode").to_string();
  o_.gamma = key(d, "gamma").to_double();
  scale_mode_ = key(d, "scale_mode").to_string();
  o_.cycle_momentum = key(d, "cycle_momentum").to_bool();
  if (o_.cycle_momentum) {
    base_momentums_ = doubles(key(d, "base_momentums"));
    max_momentums_ = doubles(key(d, "max_momentums"));
  }
}

// ── OneCycleLR ───────────────────────────────────────────────────────────
namespace {
Optimizer& prepare_one_cycle(Optimizer& opt, const OneCycleLROptions& o) {
  const char* op = "optim.OneCycleLR";
  const size_t n = opt.param_groups().size();
  const auto max_lrs = o.max_lr.expand(n, op, "max_lr");
  if (o.last_epoch == -1)
    for (size_t i = 0; i < n; ++i) {
      Dict& g = opt.param_groups()[i].options();
      const double initial = max_lrs[i] / o.div_factor;
      g.insert(Value("initial_lr"), Value(initial));
      g.insert(Value("max_lr"), Value(max_lrs[i]));
      g.insert(Value("min_lr"), Value(initial / o.final_div_factor));
    }
  if (o.cycle_momentum) {
    ParamGroup& first = opt.param_groups()[0];
    EMBER_CHECK(first.has_option("momentum") || first.has_option("betas"), op,
                "optimizer must support momentum with `cycle_momentum` option enabled");
    const bool beta1 = first.has_option("betas");
    const auto max_m = o.max_momentum.expand(n, op, "max_momentum");
    const auto base_m = o.base_momentum.expand(n, op, "base_momentum");
    if (o.last_epoch == -1)
      for (size_t i = 0; i < n; ++i) {
        ParamGroup& g = opt.param_groups()[i];
        if (beta1)
          g.options().insert(Value("betas"), Value(Tuple{{Value(max_m[i]),
                                                          Value(g.get_betas().second)}}));
        else
          g.options().insert(Value("momentum"), Value(max_m[i]));
        g.options().insert(Value("max_momentum"), Value(max_m[i]));
        g.options().insert(Value("base_momentum"), Value(base_m[i]));
      }
  }
  return opt;
}
}  // namespace

OneCycleLR::OneCycleLR(Optimizer& opt, OneCycleLROptions o)
    : LRScheduler(prepare_one_cycle(opt, o), o.last_epoch), o_(std::move(o)) {
  const char* op = "optim.OneCycleLR";
  if (o_.total_steps <= 0) {
    EMBER_CHECK(o_.epochs > 0 && o_.steps_per_epoch > 0, op,
                "You must define either total_steps OR (epochs AND steps_per_epoch)");
    o_.total_steps = o_.epochs * o_.steps_per_epoch;
  }
  EMBER_CHECK(o_.pct_start >= 0 && o_.pct_start <= 1, op,
              "Expected float between 0 and 1 pct_start, but got ", o_.pct_start);
  EMBER_CHECK(o_.anneal_strategy == "cos" || o_.anneal_strategy == "linear", op,
              "anneal_strategy must by one of 'cos' or 'linear', instead got ",
              o_.anneal_strategy);
  const double total = double(o_.total_steps);
  if (o_.three_phase)
    phases_ = {{o_.pct_start * total - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"},
               {2 * o_.pct_start * total - 2, "max_lr", "initial_lr", "base_momentum",
                "max_momentum"},
               {total - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"}};
  else
    phases_ = {{o_.pct_start * total - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"},
               {total - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"}};
  use_beta1_ = o_.cycle_momentum && opt.param_groups()[0].has_option("betas");
  initial_step();
}

std::vector<double> OneCycleLR::get_lr() {
  const int64_t step_num = last_epoch_;
  EMBER_CHECK(step_num <= o_.total_steps, "optim.OneCycleLR", "Tried to step ", step_num + 1,
              " times. The specified number of total steps is ", o_.total_steps);
  const bool cos = o_.anneal_strategy == "cos";
  auto anneal = [cos](double start, double end, double pct) {
    return cos ? end + (start - end) / 2.0 * (std::cos(kPi * pct) + 1) : (end - start) * pct + start;
  };
  std::vector<double> lrs;
  for (ParamGroup& g : optimizer_->param_groups()) {
    double start_step = 0, lr = 0, momentum = 0;
    for (size_t i = 0; i < phases_.size(); ++i) {
      const Phase& ph = phases_[i];
      if (double(step_num) <= ph.end_step || i == phases_.size() - 1) {
        const double pct = (double(step_num) - start_step) / (ph.end_step - start_step);
        lr = anneal(g.get(ph.start_lr), g.get(ph.end_lr), pct);
        if (o_.cycle_momentum) momentum = anneal(g.get(ph.start_momentum), g.get(ph.end_momentum), pct);
        break;
      }
      start_step = ph.end_step;
    }
    lrs.push_back(lr);
    if (o_.cycle_momentum) {
      if (use_beta1_)
        g.options().insert(Value("betas"),
                           Value(Tuple{{Value(momentum), Value(g.get_betas().second)}}));
      else
        g.options().insert(Value("momentum"), Value(momentum));
    }
  }
  return lrs;
}

void OneCycleLR::save_settings(Dict& d) const {
  d.insert(Value("total_steps"), Value(o_.total_steps));
  d.insert(Value("anneal_strategy"), Value(o_.anneal_strategy));
  d.insert(Value("cycle_momentum"), Value(o_.cycle_momentum));
  d.insert(Value("use_beta1"), Value(use_beta1_));
}
void OneCycleLR::load_settings(const Dict& d) {
  o_.total_steps = key(d, "total_steps").to_int();
  o_.anneal_strategy = key(d, "anneal_strategy").to_string();
  o_.cycle_momentum = key(d, "cycle_momentum").to_bool();
  use_beta1_ = key(d, "use_beta1").to_bool();
}

// ── warmup schedules ─────────────────────────────────────────────────────
WarmupCosineLR::WarmupCosineLR(Optimizer& opt, WarmupCosineLROptions o)
    : LambdaLR(opt,
               [o](int64_t step) {
                 if (step < o.warmup_steps)
                   return double(step) / double(std::max<int64_t>(1, o.warmup_steps));
                 const double progress = double(step - o.warmup_steps) /
                                         double(std::max<int64_t>(1, o.total_steps - o.warmup_steps));
                 return std::max(0.0, 0.5 * (1.0 + std::cos(kPi * o.num_cycles * 2.0 * progress)));
               },
               o.last_epoch) {}

WarmupLinearLR::WarmupLinearLR(Optimizer& opt, WarmupLinearLROptions o)
    : LambdaLR(opt,
               [o](int64_t step) {
                 if (step < o.warmup_steps)
                   return double(step) / double(std::max<int64_t>(1, o.warmup_steps));
                 return std::max(0.0, double(o.total_steps - step) /
                                          double(std::max<int64_t>(1, o.total_steps - o.warmup_steps)));
               },
               o.last_epoch) {}

// ── SequentialLR / ChainedScheduler ─────────────────────────────────────
SequentialLR::SequentialLR(Optimizer& opt, SequentialLROptions o)
    : LRScheduler(opt, -1), o_(std::move(o)) {
  const char* op = "optim.SequentialLR";
  EMBER_CHECK(!o_.schedulers.empty(), op, "expects at least one scheduler");
  for (size_t i = 0; i < o_.schedulers.size(); ++i)
    EMBER_CHECK(&o_.schedulers[i].get().optimizer() == &opt, op,
                "Sequential Schedulers expects all schedulers to belong to the same optimizer, "
                "but got schedulers at index ", i, " to be different than the optimizer passed in.");
  EMBER_CHECK(o_.milestones.size() + 1 == o_.schedulers.size(), op,
              "Sequential Schedulers expects number of schedulers provided to be one more than "
              "the number of milestone points, but got number of schedulers ",
              o_.schedulers.size(), " and the number of milestones to be equal to ",
              o_.milestones.size());
  last_epoch_ = o_.last_epoch + 1;
  for (ParamGroup& g : opt.param_groups()) g.set_lr(g.get("initial_lr"));
  for (LRScheduler& s : o_.schedulers) s.last_epoch_ -= 1;
  o_.schedulers[0].get().initial_step();
  last_lr_ = o_.schedulers[0].get().get_last_lr();
}

void SequentialLR::step() {
  ++last_epoch_;
  const size_t idx = std::upper_bound(o_.milestones.begin(), o_.milestones.end(), last_epoch_) -
                     o_.milestones.begin();
  LRScheduler& s = o_.schedulers[idx];
  if (idx > 0 && o_.milestones[idx - 1] == last_epoch_)
    s.step(0.0);  // a new phase restarts its scheduler from epoch 0 (closed form)
  else
    s.step();
  last_lr_ = s.get_last_lr();
}

void SequentialLR::step(double) {
  fail("optim.SequentialLR", "step(epoch) is not supported; call step()");
}

std::vector<double> SequentialLR::get_lr() { return last_lr_; }

Value SequentialLR::state_dict() const {
  Dict d;
  d.insert(Value("_milestones"), Value([&] {
             List l;
             for (int64_t m : o_.milestones) l.emplace_back(m);
             return l;
           }()));
  d.insert(Value("last_epoch"), Value(last_epoch_));
  d.insert(Value("_last_lr"), Value(to_list(last_lr_)));
  List children;
  for (const LRScheduler& s : o_.schedulers) children.push_back(s.state_dict());
  d.insert(Value("_schedulers"), Value(std::move(children)));
  return Value(std::move(d));
}

void SequentialLR::load_state_dict(const Value& state) {
  const Dict& d = as_dict(state, "optim.SequentialLR");
  last_epoch_ = key(d, "last_epoch").to_int();
  last_lr_ = doubles(key(d, "_last_lr"));
  const List& children = key(d, "_schedulers").to_list();
  EMBER_CHECK(children.size() == o_.schedulers.size(), "optim.SequentialLR", "state has ",
              children.size(), " schedulers, this SequentialLR has ", o_.schedulers.size());
  for (size_t i = 0; i < children.size(); ++i) o_.schedulers[i].get().load_state_dict(children[i]);
}

ChainedScheduler::ChainedScheduler(std::vector<SchedulerRef> schedulers)
    : LRScheduler([&]() -> Optimizer& {
        EMBER_CHECK(!schedulers.empty(), "optim.ChainedScheduler",
                    "expects at least one scheduler");
        return schedulers[0].get().optimizer();
      }(), -1),
      schedulers_(std::move(schedulers)) {
  for (size_t i = 1; i < schedulers_.size(); ++i)
    EMBER_CHECK(&schedulers_[i].get().optimizer() == optimizer_, "optim.ChainedScheduler",
                "ChainedScheduler expects all schedulers to belong to the same optimizer, but "
                "got schedulers at index 0 and ", i, " to be different");
  last_lr_ = group_lrs();
}

void ChainedScheduler::step() {
  for (LRScheduler& s : schedulers_) s.step();
  last_lr_ = group_lrs();
}

void ChainedScheduler::step(double) {
  fail("optim.ChainedScheduler", "step(epoch) is not supported; call step()");
}

std::vector<double> ChainedScheduler::get_lr() { return group_lrs(); }

Value ChainedScheduler::state_dict() const {
  Dict d;
  d.insert(Value("_last_lr"), Value(to_list(last_lr_)));
  List children;
  for (const LRScheduler& s : schedulers_) children.push_back(s.state_dict());
  d.insert(Value("_schedulers"), Value(std::move(children)));
  return Value(std::move(d));
}

void ChainedScheduler::load_state_dict(const Value& state) {
  const Dict& d = as_dict(state, "optim.ChainedScheduler");
  last_lr_ = doubles(key(d, "_last_lr"));
  const List& children = key(d, "_schedulers").to_list();
  EMBER_CHECK(children.size() == schedulers_.size(), "optim.ChainedScheduler", "state has ",
              children.size(), " schedulers, this ChainedScheduler has ", schedulers_.size());
  for (size_t i = 0; i < children.size(); ++i) schedulers_[i].get().load_state_dict(children[i]);
}

// ── ReduceLROnPlateau ────────────────────────────────────────────────────
ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& opt, ReduceLROnPlateauOptions o)
    : optimizer_(&opt), o_(std::move(o)) {
  const char* op = "optim.ReduceLROnPlateau";
  EMBER_CHECK(o_.factor < 1.0, op, "Factor should be < 1.0, got ", o_.factor);
  EMBER_CHECK(o_.mode == "min" || o_.mode == "max", op, "mode ", o_.mode, " is unknown!");
  EMBER_CHECK(o_.threshold_mode == "rel" || o_.threshold_mode == "abs", op, "threshold mode ",
              o_.threshold_mode, " is unknown!");
  min_lrs_ = o_.min_lr.expand(opt.param_groups().size(), op, "min_lr");
  best_ = o_.mode == "min" ? std::numeric_limits<double>::infinity()
                           : -std::numeric_limits<double>::infinity();
  for (const ParamGroup& g : opt.param_groups()) last_lr_.push_back(g.lr());
}

bool ReduceLROnPlateau::is_better(double a, double best) const {
  if (o_.mode == "min" && o_.threshold_mode == "rel") return a < best * (1.0 - o_.threshold);
  if (o_.mode == "min") return a < best - o_.threshold;
  if (o_.threshold_mode == "rel") return a > best * (o_.threshold + 1.0);
  return a > best + o_.threshold;
}

void ReduceLROnPlateau::step(double metric) {
  last_epoch_ += 1;
  if (is_better(metric, best_)) {
    best_ = metric;
    num_bad_epochs_ = 0;
  } else {
    num_bad_epochs_ += 1;
  }
  if (cooldown_counter_ > 0) {  // in cooldown: bad epochs do not count
    cooldown_counter_ -= 1;
    num_bad_epochs_ = 0;
  }
  if (num_bad_epochs_ > o_.patience) {
    auto& groups = optimizer_->param_groups();
    for (size_t i = 0; i < groups.size(); ++i) {
      const double old_lr = groups[i].lr();
      const double new_lr = std::max(old_lr * o_.factor, min_lrs_[i]);
      if (old_lr - new_lr > o_.eps) groups[i].set_lr(new_lr);  // ignore changes below eps
    }
    cooldown_counter_ = o_.cooldown;
    num_bad_epochs_ = 0;
  }
  last_lr_.clear();
  for (const ParamGroup& g : optimizer_->param_groups()) last_lr_.push_back(g.lr());
}

Value ReduceLROnPlateau::state_dict() const {
  return Value(Dict{{"factor", o_.factor},
                    {"min_lrs", Value(to_list(min_lrs_))},
                    {"patience", o_.patience},
                    {"verbose", false},
                    {"cooldown", o_.cooldown},
                    {"cooldown_counter", cooldown_counter_},
                    {"mode", o_.mode},
                    {"threshold", o_.threshold},
                    {"threshold_mode", o_.threshold_mode},
                    {"best", best_},
                    {"num_bad_epochs", num_bad_epochs_},
                    {"mode_worse", o_.mode == "min" ? std::numeric_limits<double>::infinity()
                                                    : -std::numeric_limits<double>::infinity()},
                    {"eps", o_.eps},
                    {"last_epoch", last_epoch_},
                    {"_last_lr", Value(to_list(last_lr_))}});
}

void ReduceLROnPlateau::load_state_dict(const Value& state) {
  const Dict& d = as_dict(state, "optim.ReduceLROnPlateau");
  o_.factor = key(d, "factor").to_double();
  min_lrs_ = doubles(key(d, "min_lrs"));
  o_.patience = key(d, "patience").to_int();
  o_.cooldown = key(d, "cooldown").to_int();
  cooldown_counter_ = key(d, "cooldown_counter").to_int();
  o_.mode = key(d, "mode").to_string();
  o_.threshold = key(d, "threshold").to_double();
  o_.threshold_mode = key(d, "threshold_mode").to_string();
  best_ = key(d, "best").to_double();
  num_bad_epochs_ = key(d, "num_bad_epochs").to_int();
  o_.eps = key(d, "eps").to_double();
  last_epoch_ = key(d, "last_epoch").to_int();
  if (d.contains(Value("_last_lr"))) last_lr_ = doubles(key(d, "_last_lr"));
}

}  // namespace ember::optim
