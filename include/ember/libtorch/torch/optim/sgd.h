// LibTorch's SGD: SGDOptions(lr).momentum(0.9).nesterov(true), SGDParamState (momentum_buffer),
// over ember's optim::SGD (Note [LibTorch optimizers over ember's]).
//
//   torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.01).momentum(0.5));
//   torch::optim::SGD plain(model->parameters(), /*lr=*/0.1);
#pragma once

#include <tuple>

#include "ember/optim/sgd.h"
#include "torch/optim/detail/ember_optimizer.h"

namespace torch::optim {

struct SGDOptions : public detail::TypedOptions<SGDOptions> {
  SGDOptions(double lr) : lr_(lr) {}  // NOLINT: implicit, so SGD(params, 0.1) works
  TORCH_ARG(double, lr);
  TORCH_ARG(double, momentum) = 0;
  TORCH_ARG(double, dampening) = 0;
  TORCH_ARG(double, weight_decay) = 0;
  TORCH_ARG(bool, nesterov) = false;

 public:
  using EmberOptions = ember::optim::SGDOptions;
  static auto fields() {
    using O = SGDOptions;
    using E = EmberOptions;
    return std::make_tuple(detail::OptionField{"lr", &O::lr_, &E::lr},
                           detail::OptionField{"momentum", &O::momentum_, &E::momentum},
                           detail::OptionField{"dampening", &O::dampening_, &E::dampening},
                           detail::OptionField{"weight_decay", &O::weight_decay_, &E::weight_decay},
                           detail::OptionField{"nesterov", &O::nesterov_, &E::nesterov});
  }
};

struct SGDParamState : public detail::TypedParamState<SGDParamState> {
  TORCH_ARG(torch::Tensor, momentum_buffer);

 public:
  static auto fields() {
    return std::make_tuple(detail::StateField{"momentum_buffer", &SGDParamState::momentum_buffer_});
  }
};

class SGD : public detail::EmberOptimizer<SGDOptions, SGDParamState, ember::optim::SGD> {
 public:
  explicit SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults)
      : EmberOptimizer(std::move(param_groups), defaults) {}
  explicit SGD(std::vector<Tensor> params, SGDOptions defaults)
      : EmberOptimizer(std::move(params), defaults) {}
};

}  // namespace torch::optim
