// The base of the LR schedulers (lr_scheduler.h has them all): LRScheduler, the epoch counter
// and state_dict every scheduler shares, and SchedulerWith, the base of the schedulers configured
// by an options struct.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "ember/optim/optimizer.h"
#include "ember/value.h"

namespace ember::optim {

/// One value for every group, or a list with one value per group.
struct PerGroup {
  std::vector<double> values;
  PerGroup(double v) : values{v} {}                            // NOLINT
  PerGroup(std::initializer_list<double> v) : values(v) {}     // NOLINT
  PerGroup(std::vector<double> v) : values(std::move(v)) {}    // NOLINT
  /// The value for each of n groups; throws ember::Error naming `what` on a length mismatch.
  std::vector<double> expand(size_t n, const char* op, const char* what) const;
};

/// One list of a scheduler's own state_dict entries, walked both ways: state_dict writes them,
/// load_state_dict reads them back (src/optim/scheduler_settings.h).
class SchedulerSettings;

class LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;

  /// Advances one epoch/iteration and sets the groups' lrs.
  virtual void step();
  /// PyTorch's deprecated step(epoch): jumps to `epoch`, using the closed form where one exists.
  virtual void step(double epoch);
  /// The lrs the last step set, one per group.
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  const std::vector<double>& base_lrs() const { return base_lrs_; }
  Optimizer& optimizer() const { return *optimizer_; }

  /// Scheduler state as a Dict (PyTorch's attribute names: "base_lrs", "last_epoch",
  /// "_step_count", "_last_lr", and the scheduler's own settings).
  virtual Value state_dict() const;
  virtual void load_state_dict(const Value& state);

 protected:
  /// Records initial_lr (last_epoch == -1) or requires it (resuming), as PyTorch.
  LRScheduler(Optimizer& optimizer, int64_t last_epoch);
  /// Must end every concrete constructor: PyTorch's _initial_step (step_count 0, then step()).
  void initial_step();
  /// The recursive form: new lrs from the groups' current lrs and last_epoch_.
  virtual std::vector<double> get_lr() = 0;
  /// The closed form used by step(epoch); defaults to get_lr().
  virtual std::vector<double> closed_form_lr() { return get_lr(); }
  /// The scheduler's own settings for state_dict (written first, as in PyTorch's __dict__);
  /// by default the entries settings() lists.
  virtual void save_settings(Dict& out) const;
  virtual void load_settings(const Dict& in);
  /// The scheduler's own state_dict entries, for both directions (none by default).
  virtual void settings(SchedulerSettings& s) { (void)s; }
  void apply(const std::vector<double>& lrs);
  std::vector<double> group_lrs() const;

  Optimizer* optimizer_;
  std::vector<double> base_lrs_;
  int64_t last_epoch_;
  int64_t step_count_ = 0;
  std::vector<double> last_lr_;

  friend class SequentialLR;

 private:
  /// The entries every scheduler saves after its own.
  void common_settings(SchedulerSettings& s);
};

/// The base of a scheduler configured by an Options struct (whose last_epoch it starts from):
/// holds the options; the scheduler adds its constructor, its formulas and its settings() list,
/// which it must give (PyTorch saves every scheduler's settings).
template <class Options>
class SchedulerWith : public LRScheduler {
 protected:
  SchedulerWith(Optimizer& optimizer, const Options& options)
      : LRScheduler(optimizer, options.last_epoch), o_(options) {}
  void settings(SchedulerSettings& s) override = 0;
  Options o_;
};

}  // namespace ember::optim
