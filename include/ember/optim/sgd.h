// Stochastic gradient descent with momentum, dampening, Nesterov momentum, L2 weight decay and
// maximize, as torch.optim.SGD (state per parameter: "momentum_buffer", None without momentum).
//
//   optim::SGD opt(params, {.lr = 0.1, .momentum = 0.9, .weight_decay = 1e-4, .nesterov = true});
#pragma once

#include "ember/optim/optimizer.h"

namespace ember::optim {

/// Fields in torch.optim.SGD's argument order; lr has no default (required, as in PyTorch).
struct SGDOptions {
  static constexpr const char* kName = "optim.SGD";
  Setting<double> lr = {};
  Setting<double> momentum = {};      // 0
  Setting<double> dampening = {};     // 0
  Setting<double> weight_decay = {};  // 0
  Setting<bool> nesterov = {};        // false
  Setting<bool> maximize = {};        // false
};
Dict resolve_options(const SGDOptions& group, const SGDOptions& defaults);

class SGD : public OptimizerWith<SGDOptions> {
 public:
  using OptimizerWith::OptimizerWith;

 protected:
  void update(ParamGroup& group) override;
};

}  // namespace ember::optim
