// The cyclic schedules of lr_scheduler_annealing.h (transcribing PyTorch 1.13's formulas, as
// lr_scheduler_factor.cpp): CyclicLR and OneCycleLR, which also cycle the groups' momentum or
// Adam's beta1.
#include <cmath>

#include "ember/error.h"
#include "ember/optim/lr_scheduler_annealing.h"
#include "optim/scheduler_settings.h"
#include "optim/scheduler_values.h"

namespace ember::optim {

using namespace scheduler_detail;

// ── CyclicLR ─────────────────────────────────────────────────────────────
CyclicLR::CyclicLR(Optimizer& opt, CyclicLROptions o)
    : SchedulerWith((
          [&]() -> Optimizer& {
            // PyTorch sets the groups' lr to base_lr before recording initial_lr.
            const auto base = o.base_lr.expand(opt.param_groups().size(), "optim.CyclicLR",
                                               "base_lr");
            if (o.last_epoch == -1)
              for (size_t i = 0; i < base.size(); ++i) opt.param_groups()[i].set_lr(base[i]);
            return opt;
          }()),
          o) {
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

void CyclicLR::settings(SchedulerSettings& s) {
  s("max_lrs", max_lrs_)("total_size", total_size_)("step_ratio", step_ratio_);
  s("mode", o_.mode)("gamma", o_.gamma)("scale_mode", scale_mode_);
  s("cycle_momentum", o_.cycle_momentum);
  // Loading reads cycle_momentum above first, so the momentums follow what the state says.
  if (o_.cycle_momentum) s("base_momentums", base_momentums_)("max_momentums", max_momentums_);
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
    : SchedulerWith(prepare_one_cycle(opt, o), o) {
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

void OneCycleLR::settings(SchedulerSettings& s) {
  s("total_steps", o_.total_steps)("anneal_strategy", o_.anneal_strategy);
  s("cycle_momentum", o_.cycle_momentum)("use_beta1", use_beta1_);
}

}  // namespace ember::optim
