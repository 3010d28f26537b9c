// Schedules made of schedules (as PyTorch 1.13): the linear-warmup + cosine schedule, SequentialLR
// (one after another at milestones) and ChainedScheduler (all at every step).
#include <algorithm>
#include <cmath>
#include <limits>

#include "ember/error.h"
#include "ember/optim/lr_scheduler.h"
#include "optim/scheduler_values.h"

namespace ember::optim {

using namespace scheduler_detail;

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

}  // namespace ember::optim
