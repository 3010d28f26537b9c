// LibTorch 1.13's StepLR: multiplies every group's learning rate by gamma on each step() whose
// count (from 0) is a positive multiple of step_size, i.e. on calls step_size + 1,
// 2 * step_size + 1, ... (LibTorch's counting, one later than Python's StepLR).
//
//   torch::optim::StepLR scheduler(optimizer, /*step_size=*/3, /*gamma=*/0.5);
//   for (epoch ...) { train(); scheduler.step(); }
#pragma once

#include <vector>

#include "torch/optim/schedulers/lr_scheduler.h"

namespace torch::optim {

class StepLR : public LRScheduler {
 public:
  StepLR(torch::optim::Optimizer& optimizer, const unsigned step_size, const double gamma = 0.1);

 private:
  std::vector<double> get_lrs() override;

  const unsigned step_size_;
  const double gamma_;
};

}  // namespace torch::optim
