// LibTorch 1.13's LRScheduler and StepLR (torch/optim/schedulers/).
#include <algorithm>

#include "ember/error.h"
#include "torch/optim/schedulers/step_lr.h"

namespace torch::optim {

void LRScheduler::step() {
  set_optimizer_lrs(get_lrs());
  ++step_count_;
}

std::vector<double> LRScheduler::get_current_lrs() const {
  std::vector<double> lrs;
  for (const OptimizerParamGroup& group : optimizer_.param_groups())
    lrs.push_back(group.options().get_lr());
  return lrs;
}

void LRScheduler::set_optimizer_lrs(const std::vector<double>& learning_rates) {
  std::vector<OptimizerParamGroup>& groups = optimizer_.param_groups();
  EMBER_CHECK(learning_rates.size() == groups.size(), "torch::optim::LRScheduler",
              "get_lrs() gave ", learning_rates.size(), " learning rates for ", groups.size(),
              " parameter groups");
  for (size_t i = 0; i < groups.size(); ++i) groups[i].options().set_lr(learning_rates[i]);
}

StepLR::StepLR(torch::optim::Optimizer& optimizer, const unsigned step_size, const double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  EMBER_CHECK(step_size > 0, "torch::optim::StepLR", "step_size must be positive, got ", step_size);
}

std::vector<double> StepLR::get_lrs() {
  std::vector<double> lrs = get_current_lrs();
  if (step_count_ > 0 && step_count_ % step_size_ == 0)
    std::transform(lrs.begin(), lrs.end(), lrs.begin(), [this](double lr) { return lr * gamma_; });
  return lrs;
}

}  // namespace torch::optim
