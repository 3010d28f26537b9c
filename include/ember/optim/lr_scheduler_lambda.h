// The LR schedules given as a function of the epoch: LambdaLR and MultiplicativeLR (PyTorch
// 1.13's, a user's function per group), and the warmup schedules built on LambdaLR (as Hugging
// Face's get_*_schedule_with_warmup).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "ember/optim/lr_scheduler_base.h"

namespace ember::optim {

/// What a lambda schedule's factor multiplies: each group's initial_lr (LambdaLR), or its
/// current lr from the second step on (MultiplicativeLR).
enum class LambdaOf { kInitialLr, kCurrentLr };

/// The schedules driven by one function of the epoch per group (one lambda for all groups or
/// one per group); LambdaLR and MultiplicativeLR are its two kinds.
template <LambdaOf kOf>
class LambdaScheduler : public LRScheduler {
 public:
  using Lambda = std::function<double(int64_t)>;
  LambdaScheduler(Optimizer& optimizer, Lambda lr_lambda, int64_t last_epoch = -1);
  LambdaScheduler(Optimizer& optimizer, std::vector<Lambda> lr_lambdas, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::vector<Lambda> lambdas_;
};
// Defined and instantiated for both kinds in lr_scheduler_lambda.cpp.
extern template class LambdaScheduler<LambdaOf::kInitialLr>;
extern template class LambdaScheduler<LambdaOf::kCurrentLr>;

/// lr = initial_lr * lambda(epoch), one lambda for all groups or one per group.
class LambdaLR : public LambdaScheduler<LambdaOf::kInitialLr> {
 public:
  using LambdaScheduler::LambdaScheduler;
};

/// lr *= lambda(epoch) each step after the first.
class MultiplicativeLR : public LambdaScheduler<LambdaOf::kCurrentLr> {
 public:
  using LambdaScheduler::LambdaScheduler;
};

// ── warmup schedules (built in, as Hugging Face's get_*_schedule_with_warmup) ──
struct WarmupCosineLROptions {
  int64_t warmup_steps = 0;
  int64_t total_steps = 1;
  double num_cycles = 0.5;  // half a cosine: initial_lr down to 0
  int64_t last_epoch = -1;
};
/// Linear warmup from 0 over warmup_steps, then cosine decay to 0 at total_steps.
class WarmupCosineLR : public LambdaLR {
 public:
  WarmupCosineLR(Optimizer& optimizer, WarmupCosineLROptions options);
};

struct WarmupLinearLROptions {
  int64_t warmup_steps = 0;
  int64_t total_steps = 1;
  int64_t last_epoch = -1;
};
/// Linear warmup from 0 over warmup_steps, then linear decay to 0 at total_steps.
class WarmupLinearLR : public LambdaLR {
 public:
  WarmupLinearLR(Optimizer& optimizer, WarmupLinearLROptions options);
};

}  // namespace ember::optim
