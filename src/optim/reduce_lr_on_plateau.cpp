// ReduceLROnPlateau (PyTorch 1.13's): lowers the groups' lr by a factor when a watched metric has
// not improved for `patience` steps, after a cooldown, not below min_lr.
#include <algorithm>
#include <limits>

#include "ember/error.h"
#include "ember/optim/reduce_lr_on_plateau.h"
#include "optim/scheduler_settings.h"
#include "optim/scheduler_values.h"

namespace ember::optim {

using namespace scheduler_detail;

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

void ReduceLROnPlateau::settings(SchedulerSettings& s) {
  const double inf = std::numeric_limits<double>::infinity();
  s("factor", o_.factor)("min_lrs", min_lrs_)("patience", o_.patience).saved("verbose", Value(false));
  s("cooldown", o_.cooldown)("cooldown_counter", cooldown_counter_)("mode", o_.mode);
  s("threshold", o_.threshold)("threshold_mode", o_.threshold_mode)("best", best_);
  s("num_bad_epochs", num_bad_epochs_).saved("mode_worse", Value(o_.mode == "min" ? inf : -inf));
  s("eps", o_.eps)("last_epoch", last_epoch_);
  if (s.has("_last_lr")) s("_last_lr", last_lr_);  // older state dicts lack it
}

// A saving walk only reads the fields (SchedulerSettings), so the cast leaves `this` unchanged.
Value ReduceLROnPlateau::state_dict() const {
  Dict d;
  SchedulerSettings s = SchedulerSettings::into(d);
  const_cast<ReduceLROnPlateau*>(this)->settings(s);
  return Value(std::move(d));
}

void ReduceLROnPlateau::load_state_dict(const Value& state) {
  SchedulerSettings s = SchedulerSettings::from(as_dict(state, "optim.ReduceLROnPlateau"));
  settings(s);
}

}  // namespace ember::optim
