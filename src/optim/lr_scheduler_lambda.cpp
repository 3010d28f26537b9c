// The LR schedules given as a function of the epoch (lr_scheduler_lambda.h): LambdaScheduler's
// two kinds, LambdaLR and MultiplicativeLR, as PyTorch 1.13's, and the warmup schedules built on
// LambdaLR.
#include "ember/optim/lr_scheduler_lambda.h"

#include <algorithm>
#include <cmath>

#include "ember/error.h"
#include "optim/scheduler_values.h"

namespace ember::optim {

using namespace scheduler_detail;

// ── LambdaLR / MultiplicativeLR ─────────────────────────────────────────
namespace {
std::vector<LambdaLR::Lambda> lambda_per_group(Optimizer& opt, std::vector<LambdaLR::Lambda> fns,
                                               const char* op) {
  if (fns.size() == 1) fns.resize(opt.param_groups().size(), fns[0]);
  EMBER_CHECK(fns.size() == opt.param_groups().size(), op, "Expected ",
              opt.param_groups().size(), " lr_lambdas, but got ", fns.size());
  for (const auto& f : fns) EMBER_CHECK(bool(f), op, "lr_lambda must be callable");
  return fns;
}
}  // namespace

template <LambdaOf kOf>
LambdaScheduler<kOf>::LambdaScheduler(Optimizer& opt, Lambda f, int64_t last_epoch)
    : LambdaScheduler(opt, std::vector<Lambda>{std::move(f)}, last_epoch) {}

// get_lr is this class's own, so the initial step can be taken here, for both kinds.
template <LambdaOf kOf>
LambdaScheduler<kOf>::LambdaScheduler(Optimizer& opt, std::vector<Lambda> fns, int64_t last_epoch)
    : LRScheduler(opt, last_epoch),
      lambdas_(lambda_per_group(opt, std::move(fns), kOf == LambdaOf::kInitialLr
                                                         ? "optim.LambdaLR"
                                                         : "optim.MultiplicativeLR")) {
  initial_step();
}

template <LambdaOf kOf>
std::vector<double> LambdaScheduler<kOf>::get_lr() {
  if constexpr (kOf == LambdaOf::kInitialLr) {
    std::vector<double> out;
    for (size_t i = 0; i < base_lrs_.size(); ++i)
      out.push_back(base_lrs_[i] * lambdas_[i](last_epoch_));
    return out;
  } else {
    std::vector<double> lrs = group_lrs();
    if (last_epoch_ > 0)
      for (size_t i = 0; i < lrs.size(); ++i) lrs[i] *= lambdas_[i](last_epoch_);
    return lrs;
  }
}

template class LambdaScheduler<LambdaOf::kInitialLr>;
template class LambdaScheduler<LambdaOf::kCurrentLr>;

// ── warmup schedules ─────────────────────────────────────────────────────
namespace {
// The linear warmup both share: 0 at step 0, 1 at warmup_steps.
double warmup_factor(int64_t step, int64_t warmup_steps) {
  return double(step) / double(std::max<int64_t>(1, warmup_steps));
}
}  // namespace

WarmupCosineLR::WarmupCosineLR(Optimizer& opt, WarmupCosineLROptions o)
    : LambdaLR(opt,
               [o](int64_t step) {
                 if (step < o.warmup_steps) return warmup_factor(step, o.warmup_steps);
                 const double progress = double(step - o.warmup_steps) /
                                         double(std::max<int64_t>(1, o.total_steps - o.warmup_steps));
                 return std::max(0.0, 0.5 * (1.0 + std::cos(kPi * o.num_cycles * 2.0 * progress)));
               },
               o.last_epoch) {}

WarmupLinearLR::WarmupLinearLR(Optimizer& opt, WarmupLinearLROptions o)
    : LambdaLR(opt,
               [o](int64_t step) {
                 if (step < o.warmup_steps) return warmup_factor(step, o.warmup_steps);
                 return std::max(0.0, double(o.total_steps - step) /
                                          double(std::max<int64_t>(1, o.total_steps - o.warmup_steps)));
               },
               o.last_epoch) {}

}  // namespace ember::optim
