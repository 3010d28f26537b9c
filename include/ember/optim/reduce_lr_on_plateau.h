// ReduceLROnPlateau, as PyTorch 1.13's: lowers the groups' lrs when a watched metric stops
// improving. Not an LRScheduler (it steps on a metric, not an epoch count), as in PyTorch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/optim/lr_scheduler_base.h"

namespace ember::optim {

struct ReduceLROnPlateauOptions {
  std::string mode = "min";  // or "max"
  double factor = 0.1;
  int64_t patience = 10;
  double threshold = 1e-4;
  std::string threshold_mode = "rel";  // or "abs"
  int64_t cooldown = 0;
  PerGroup min_lr = 0.0;
  double eps = 1e-8;
};
/// Multiplies lrs by factor after `patience` steps without improvement of the metric.
class ReduceLROnPlateau {
 public:
  ReduceLROnPlateau(Optimizer& optimizer, ReduceLROnPlateauOptions options = {});
  void step(double metric);
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  int64_t num_bad_epochs() const { return num_bad_epochs_; }
  double best() const { return best_; }
  Value state_dict() const;
  void load_state_dict(const Value& state);

 private:
  bool is_better(double a, double best) const;
  /// The state_dict entries, in PyTorch's order, for both directions.
  void settings(SchedulerSettings& s);
  Optimizer* optimizer_;
  ReduceLROnPlateauOptions o_;
  std::vector<double> min_lrs_;
  double best_;
  int64_t num_bad_epochs_ = 0, cooldown_counter_ = 0, last_epoch_ = 0;
  std::vector<double> last_lr_;
};

}  // namespace ember::optim
