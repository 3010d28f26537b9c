// Schedules made of schedules (lr_scheduler_composite.h, as PyTorch 1.13): SequentialLR (one
// after another at milestones) and ChainedScheduler (all at every step), over CompositeScheduler
// (the children's state dicts, the refusal of step(epoch)).
#include "ember/optim/lr_scheduler_composite.h"

#include <algorithm>

#include "ember/error.h"
#include "optim/scheduler_settings.h"
#include "optim/scheduler_values.h"

namespace ember::optim {

using namespace scheduler_detail;

// ── CompositeScheduler ───────────────────────────────────────────────────
CompositeScheduler::CompositeScheduler(Optimizer& opt, std::vector<SchedulerRef> schedulers,
                                       const char* op, const char* name)
    : LRScheduler(opt, -1), schedulers_(std::move(schedulers)), op_(op), name_(name) {}

void CompositeScheduler::step(double) { fail(op_, "step(epoch) is not supported; call step()"); }

Value CompositeScheduler::state_dict() const {
  Dict d;
  save_settings(d);
  d.insert(Value("_last_lr"), Value(to_list(last_lr_)));
  List children;
  for (const LRScheduler& s : schedulers_) children.push_back(s.state_dict());
  d.insert(Value("_schedulers"), Value(std::move(children)));
  return Value(std::move(d));
}

void CompositeScheduler::load_state_dict(const Value& state) {
  const Dict& d = as_dict(state, op_);
  load_settings(d);
  last_lr_ = doubles(key(d, "_last_lr"));
  const List& children = key(d, "_schedulers").to_list();
  EMBER_CHECK(children.size() == schedulers_.size(), op_, "state has ", children.size(),
              " schedulers, this ", name_, " has ", schedulers_.size());
  for (size_t i = 0; i < children.size(); ++i) schedulers_[i].get().load_state_dict(children[i]);
}

// ── SequentialLR ─────────────────────────────────────────────────────────
SequentialLR::SequentialLR(Optimizer& opt, SequentialLROptions o)
    : CompositeScheduler(opt, std::move(o.schedulers), "optim.SequentialLR", "SequentialLR"),
      milestones_(std::move(o.milestones)) {
  EMBER_CHECK(!schedulers_.empty(), op_, "expects at least one scheduler");
  for (size_t i = 0; i < schedulers_.size(); ++i)
    EMBER_CHECK(&schedulers_[i].get().optimizer() == &opt, op_,
                "Sequential Schedulers expects all schedulers to belong to the same optimizer, "
                "but got schedulers at index ", i, " to be different than the optimizer passed in.");
  EMBER_CHECK(milestones_.size() + 1 == schedulers_.size(), op_,
              "Sequential Schedulers expects number of schedulers provided to be one more than "
              "the number of milestone points, but got number of schedulers ",
              schedulers_.size(), " and the number of milestones to be equal to ",
              milestones_.size());
  last_epoch_ = o.last_epoch + 1;
  for (ParamGroup& g : opt.param_groups()) g.set_lr(g.get("initial_lr"));
  for (LRScheduler& s : schedulers_) s.last_epoch_ -= 1;
  schedulers_[0].get().initial_step();
  last_lr_ = schedulers_[0].get().get_last_lr();
}

void SequentialLR::step() {
  ++last_epoch_;
  const size_t idx = std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) -
                     milestones_.begin();
  LRScheduler& s = schedulers_[idx];
  if (idx > 0 && milestones_[idx - 1] == last_epoch_)
    s.step(0.0);  // a new phase restarts its scheduler from epoch 0 (closed form)
  else
    s.step();
  last_lr_ = s.get_last_lr();
}

void SequentialLR::settings(SchedulerSettings& s) {
  List milestones;  // saved as PyTorch keeps them; the milestones stay the constructor's
  for (int64_t m : milestones_) milestones.emplace_back(m);
  s.saved("_milestones", Value(std::move(milestones)))("last_epoch", last_epoch_);
}

// ── ChainedScheduler ─────────────────────────────────────────────────────
ChainedScheduler::ChainedScheduler(std::vector<SchedulerRef> schedulers)
    : CompositeScheduler(
          [&]() -> Optimizer& {
            EMBER_CHECK(!schedulers.empty(), "optim.ChainedScheduler",
                        "expects at least one scheduler");
            return schedulers[0].get().optimizer();
          }(),
          schedulers, "optim.ChainedScheduler", "ChainedScheduler") {
  for (size_t i = 1; i < schedulers_.size(); ++i)
    EMBER_CHECK(&schedulers_[i].get().optimizer() == optimizer_, op_,
                "ChainedScheduler expects all schedulers to belong to the same optimizer, but "
                "got schedulers at index 0 and ", i, " to be different");
  last_lr_ = group_lrs();
}

void ChainedScheduler::step() {
  for (LRScheduler& s : schedulers_) s.step();
  last_lr_ = group_lrs();
}

}  // namespace ember::optim
