// Schedules made of schedules, as PyTorch 1.13's: SequentialLR (one after another at
// milestones) and ChainedScheduler (all of them at every step).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "ember/optim/lr_scheduler_base.h"

namespace ember::optim {

using SchedulerRef = std::reference_wrapper<LRScheduler>;

/// The base of the schedulers made of schedulers of one optimizer, held by reference (they must
/// outlive it). The children set the lrs; step(epoch) is refused; state_dict is the composite's
/// own settings, "_last_lr", then the children's state dicts as "_schedulers".
class CompositeScheduler : public LRScheduler {
 public:
  void step(double epoch) override;
  Value state_dict() const override;
  void load_state_dict(const Value& state) override;

 protected:
  /// `op` ("optim.<name>") and `name` name the scheduler in errors; the subclass checks the
  /// children.
  CompositeScheduler(Optimizer& optimizer, std::vector<SchedulerRef> schedulers, const char* op,
                     const char* name);
  /// The lrs the children set last (step() is the subclass's; get_lr is never reached).
  std::vector<double> get_lr() override { return last_lr_; }
  std::vector<SchedulerRef> schedulers_;
  const char *op_, *name_;
};

struct SequentialLROptions {
  std::vector<SchedulerRef> schedulers = {};  // by reference: they must outlive this scheduler
  std::vector<int64_t> milestones = {};
  int64_t last_epoch = -1;
};
/// Runs schedulers[i] between milestones[i-1] and milestones[i] (restarting each at 0).
class SequentialLR : public CompositeScheduler {
 public:
  SequentialLR(Optimizer& optimizer, SequentialLROptions options);
  void step() override;
  using CompositeScheduler::step;

 protected:
  void settings(SchedulerSettings& s) override;
  std::vector<int64_t> milestones_;
};

/// Steps every scheduler each step (their factors multiply).
class ChainedScheduler : public CompositeScheduler {
 public:
  explicit ChainedScheduler(std::vector<SchedulerRef> schedulers);
  void step() override;
  using CompositeScheduler::step;
};

}  // namespace ember::optim
