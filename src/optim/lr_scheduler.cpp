// The base of the LR schedulers of ember/optim/lr_scheduler.h: LRScheduler's epoch counting and
// state_dict (its entries and each scheduler's, through SchedulerSettings). The families, each
// transcribing torch/optim/lr_scheduler.py (1.13) formula by formula: lr_scheduler_lambda.cpp,
// lr_scheduler_factor.cpp, lr_scheduler_cosine.cpp, lr_scheduler_cyclic.cpp,
// lr_scheduler_composite.cpp and reduce_lr_on_plateau.cpp.
#include "ember/optim/lr_scheduler_base.h"

#include "ember/error.h"
#include "optim/scheduler_settings.h"
#include "optim/scheduler_values.h"

namespace ember::optim {

using namespace scheduler_detail;

std::vector<double> PerGroup::expand(size_t n, const char* op, const char* what) const {
  if (values.size() == 1) return std::vector<double>(n, values[0]);
  EMBER_CHECK(values.size() == n, op, "expected ", n, " values for ", what, ", got ",
              values.size());
  return values;
}

// ── LRScheduler ──────────────────────────────────────────────────────────
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

// A saving walk only reads the fields (SchedulerSettings), so the casts below leave `this`
// unchanged: they let one list serve state_dict (const) and load_state_dict.
void LRScheduler::save_settings(Dict& out) const {
  SchedulerSettings s = SchedulerSettings::into(out);
  const_cast<LRScheduler*>(this)->settings(s);
}

void LRScheduler::load_settings(const Dict& in) {
  SchedulerSettings s = SchedulerSettings::from(in);
  settings(s);
}

void LRScheduler::common_settings(SchedulerSettings& s) {
  s("base_lrs", base_lrs_)("last_epoch", last_epoch_).saved("verbose", Value(false));
  s("_step_count", step_count_).saved("_get_lr_called_within_step", Value(false));
  s("_last_lr", last_lr_);
}

Value LRScheduler::state_dict() const {
  Dict d;
  save_settings(d);
  SchedulerSettings s = SchedulerSettings::into(d);
  const_cast<LRScheduler*>(this)->common_settings(s);
  return Value(std::move(d));
}

void LRScheduler::load_state_dict(const Value& state) {
  const Dict& d = as_dict(state, "optim.lr_scheduler");
  load_settings(d);
  SchedulerSettings s = SchedulerSettings::from(d);
  common_settings(s);
}

}  // namespace ember::optim
