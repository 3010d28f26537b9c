// LibTorch 1.13's LRScheduler: the base of its C++ schedulers (StepLR is the one 1.13 has).
// step() asks get_lrs() for each group's new learning rate, sets it through the group's
// options (set_lr), then counts the step; the new values take effect in the optimizer's next
// step(). Unlike Python's schedulers, construction changes nothing and the count starts at 0.
// A program's own scheduler derives from it and overrides get_lrs(), as with LibTorch's.
#pragma once

#include <vector>

#include "torch/optim/optimizer.h"

namespace torch::optim {

class LRScheduler {
 public:
  LRScheduler(torch::optim::Optimizer& optimizer) : optimizer_(optimizer) {}  // NOLINT
  virtual ~LRScheduler() = default;

  void step();

 protected:
  /// The learning rates to set, one per parameter group.
  virtual std::vector<double> get_lrs() = 0;
  /// The groups' learning rates now.
  std::vector<double> get_current_lrs() const;

  unsigned step_count_ = 0;

 private:
  void set_optimizer_lrs(const std::vector<double>& learning_rates);

  torch::optim::Optimizer& optimizer_;
};

}  // namespace torch::optim
