// LibTorch's RMSprop: RMSpropOptions(lr).alpha().eps().weight_decay().momentum().centered(),
// RMSpropParamState (step, square_avg, momentum_buffer, grad_avg), over ember's optim::RMSprop
// (Note [LibTorch optimizers over ember's]).
//
//   torch::optim::RMSprop optimizer(model->parameters(),
//                                   torch::optim::RMSpropOptions(0.01).momentum(0.9).centered(true));
#pragma once

#include <cstdint>
#include <tuple>

#include "ember/optim/rmsprop.h"
#include "torch/optim/detail/ember_optimizer.h"

namespace torch::optim {

struct RMSpropOptions : public detail::TypedOptions<RMSpropOptions> {
  RMSpropOptions(double lr = 1e-2) : lr_(lr) {}  // NOLINT: implicit, as LibTorch's
  TORCH_ARG(double, lr) = 1e-2;
  TORCH_ARG(double, alpha) = 0.99;
  TORCH_ARG(double, eps) = 1e-8;
  TORCH_ARG(double, weight_decay) = 0;
  TORCH_ARG(double, momentum) = 0;
  TORCH_ARG(bool, centered) = false;

 public:
  using EmberOptions = ember::optim::RMSpropOptions;
  static auto fields() {
    using O = RMSpropOptions;
    using E = EmberOptions;
    return std::make_tuple(detail::OptionField{"lr", &O::lr_, &E::lr},
                           detail::OptionField{"alpha", &O::alpha_, &E::alpha},
                           detail::OptionField{"eps", &O::eps_, &E::eps},
                           detail::OptionField{"weight_decay", &O::weight_decay_, &E::weight_decay},
                           detail::OptionField{"momentum", &O::momentum_, &E::momentum},
                           detail::OptionField{"centered", &O::centered_, &E::centered});
  }
};

struct RMSpropParamState : public detail::TypedParamState<RMSpropParamState> {
  TORCH_ARG(int64_t, step) = 0;
  TORCH_ARG(torch::Tensor, square_avg);
  TORCH_ARG(torch::Tensor, momentum_buffer) = {};
  TORCH_ARG(torch::Tensor, grad_avg) = {};

 public:
  static auto fields() {
    using S = RMSpropParamState;
    return std::make_tuple(detail::StateField{"step", &S::step_},
                           detail::StateField{"square_avg", &S::square_avg_},
                           detail::StateField{"momentum_buffer", &S::momentum_buffer_},
                           detail::StateField{"grad_avg", &S::grad_avg_});
  }
};

class RMSprop
    : public detail::EmberOptimizer<RMSpropOptions, RMSpropParamState, ember::optim::RMSprop> {
 public:
  explicit RMSprop(std::vector<OptimizerParamGroup> param_groups, RMSpropOptions defaults = {})
      : EmberOptimizer(std::move(param_groups), defaults) {}
  explicit RMSprop(std::vector<Tensor> params, RMSpropOptions defaults = {})
      : EmberOptimizer(std::move(params), defaults) {}
};

}  // namespace torch::optim
