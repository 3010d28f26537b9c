// RMSprop (optionally centered, with momentum) and Adagrad, as torch.optim 1.13. State:
// RMSprop "step" (an int), "square_avg", "momentum_buffer" (momentum > 0), "grad_avg" (centered);
// Adagrad "step" (0-d float32 tensor) and "sum", created for every parameter at construction.
//
//   optim::RMSprop opt(params, {.lr = 1e-2, .alpha = 0.99, .momentum = 0.9, .centered = true});
//   optim::Adagrad opt(params, {.lr = 1e-2, .lr_decay = 1e-4});
#pragma once

#include "ember/optim/optimizer.h"

namespace ember::optim {

/// Fields in torch.optim.RMSprop's argument order.
struct RMSpropOptions {
  static constexpr const char* kName = "optim.RMSprop";
  Setting<double> lr = {};            // 1e-2
  Setting<double> alpha = {};         // 0.99
  Setting<double> eps = {};           // 1e-8
  Setting<double> weight_decay = {};  // 0
  Setting<double> momentum = {};      // 0
  Setting<bool> centered = {};        // false
  Setting<bool> maximize = {};        // false
};
Dict resolve_options(const RMSpropOptions& group, const RMSpropOptions& defaults);

/// Fields in torch.optim.Adagrad's argument order.
struct AdagradOptions {
  static constexpr const char* kName = "optim.Adagrad";
  Setting<double> lr = {};                         // 1e-2
  Setting<double> lr_decay = {};                   // 0
  Setting<double> weight_decay = {};               // 0
  Setting<double> initial_accumulator_value = {};  // 0; PyTorch 1.13 fills "sum" from the
                                                  // optimizer defaults only, so does ember
  Setting<double> eps = {};                        // 1e-10
  Setting<bool> maximize = {};                     // false
};
Dict resolve_options(const AdagradOptions& group, const AdagradOptions& defaults);

class RMSprop : public OptimizerWith<RMSpropOptions> {
 public:
  using OptimizerWith::OptimizerWith;

 protected:
  void update(ParamGroup& group) override;
};

class Adagrad : public OptimizerWith<AdagradOptions> {
 public:
  /// Creates every parameter's state now, as PyTorch does (state_dict() lists them at once).
  explicit Adagrad(std::vector<Tensor> params, AdagradOptions defaults = {});
  explicit Adagrad(std::vector<Group> groups, AdagradOptions defaults = {});

 protected:
  void update(ParamGroup& group) override;

 private:
  void init_state(const ParamGroup& group);
};

}  // namespace ember::optim
