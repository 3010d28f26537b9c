// The Adam family, as torch.optim 1.13: Adam (L2 weight decay, amsgrad, maximize), AdamW
// (decoupled weight decay), Adamax (infinity norm), NAdam (Nesterov momentum with momentum
// decay) and RAdam (variance rectification). State per parameter: "step" (a 0-d float32
// tensor), "exp_avg", "exp_avg_sq" (Adamax: "exp_inf"; NAdam adds "mu_product";
// amsgrad adds "max_exp_avg_sq").
//
//   optim::Adam(params, {.lr = 1e-3, .betas = {0.9, 0.999}, .eps = 1e-8, .amsgrad = true});
//   optim::AdamW opt({{backbone, {.lr = 1e-5}}, {head, {.lr = 1e-3}}}, {.weight_decay = 0.01});
#pragma once

#include "ember/optim/optimizer.h"

namespace ember::optim {

/// Fields in torch.optim.Adam's argument order.
struct AdamOptions {
  static constexpr const char* kName = "optim.Adam";
  Setting<double> lr = {};            // 1e-3
  Setting<Betas> betas = {};          // (0.9, 0.999)
  Setting<double> eps = {};           // 1e-8
  Setting<double> weight_decay = {};  // 0 (L2: added to the gradient)
  Setting<bool> amsgrad = {};         // false
  Setting<bool> maximize = {};        // false
};
Dict resolve_options(const AdamOptions& group, const AdamOptions& defaults);

/// Fields in torch.optim.AdamW's argument order.
struct AdamWOptions {
  static constexpr const char* kName = "optim.AdamW";
  Setting<double> lr = {};            // 1e-3
  Setting<Betas> betas = {};          // (0.9, 0.999)
  Setting<double> eps = {};           // 1e-8
  Setting<double> weight_decay = {};  // 1e-2 (decoupled: p *= 1 - lr * weight_decay)
  Setting<bool> amsgrad = {};         // false
  Setting<bool> maximize = {};        // false
};
Dict resolve_options(const AdamWOptions& group, const AdamWOptions& defaults);

struct AdamaxOptions {
  static constexpr const char* kName = "optim.Adamax";
  Setting<double> lr = {};            // 2e-3
  Setting<Betas> betas = {};          // (0.9, 0.999)
  Setting<double> eps = {};           // 1e-8
  Setting<double> weight_decay = {};  // 0
  Setting<bool> maximize = {};        // false
};
Dict resolve_options(const AdamaxOptions& group, const AdamaxOptions& defaults);

struct NAdamOptions {
  static constexpr const char* kName = "optim.NAdam";
  Setting<double> lr = {};              // 2e-3
  Setting<Betas> betas = {};            // (0.9, 0.999)
  Setting<double> eps = {};             // 1e-8
  Setting<double> weight_decay = {};    // 0
  Setting<double> momentum_decay = {};  // 4e-3
};
Dict resolve_options(const NAdamOptions& group, const NAdamOptions& defaults);

struct RAdamOptions {
  static constexpr const char* kName = "optim.RAdam";
  Setting<double> lr = {};            // 1e-3
  Setting<Betas> betas = {};          // (0.9, 0.999)
  Setting<double> eps = {};           // 1e-8
  Setting<double> weight_decay = {};  // 0
};
Dict resolve_options(const RAdamOptions& group, const RAdamOptions& defaults);

class Adam : public OptimizerWith<AdamOptions> {
 public:
  using OptimizerWith::OptimizerWith;

 protected:
  void update(ParamGroup& group) override;
};

class AdamW : public OptimizerWith<AdamWOptions> {
 public:
  using OptimizerWith::OptimizerWith;

 protected:
  void update(ParamGroup& group) override;
};

class Adamax : public OptimizerWith<AdamaxOptions> {
 public:
  using OptimizerWith::OptimizerWith;

 protected:
  void update(ParamGroup& group) override;
};

class NAdam : public OptimizerWith<NAdamOptions> {
 public:
  using OptimizerWith::OptimizerWith;

 protected:
  void update(ParamGroup& group) override;
};

class RAdam : public OptimizerWith<RAdamOptions> {
 public:
  using OptimizerWith::OptimizerWith;

 protected:
  void update(ParamGroup& group) override;
};

}  // namespace ember::optim
