// LibTorch's Adagrad: AdagradOptions(lr).lr_decay().weight_decay().initial_accumulator_value()
// .eps(), AdagradParamState (sum, step; made for every parameter at construction, filled with
// the defaults' initial_accumulator_value), over ember's optim::Adagrad (Note [LibTorch
// optimizers over ember's]).
//
//   torch::optim::Adagrad optimizer(model->parameters(), torch::optim::AdagradOptions(0.1));
#pragma once

#include <cstdint>
#include <tuple>

#include "ember/optim/rmsprop.h"
#include "torch/optim/detail/ember_optimizer.h"

namespace torch::optim {

struct AdagradOptions : public detail::TypedOptions<AdagradOptions> {
  AdagradOptions(double lr = 1e-2) : lr_(lr) {}  // NOLINT: implicit, as LibTorch's
  TORCH_ARG(double, lr) = 1e-2;
  TORCH_ARG(double, lr_decay) = 0;
  TORCH_ARG(double, weight_decay) = 0;
  TORCH_ARG(double, initial_accumulator_value) = 0;
  TORCH_ARG(double, eps) = 1e-10;

 public:
  using EmberOptions = ember::optim::AdagradOptions;
  static auto fields() {
    using O = AdagradOptions;
    using E = EmberOptions;
    return std::make_tuple(
        detail::OptionField{"lr", &O::lr_, &E::lr},
        detail::OptionField{"lr_decay", &O::lr_decay_, &E::lr_decay},
        detail::OptionField{"weight_decay", &O::weight_decay_, &E::weight_decay},
        detail::OptionField{"initial_accumulator_value", &O::initial_accumulator_value_,
                            &E::initial_accumulator_value},
        detail::OptionField{"eps", &O::eps_, &E::eps});
  }
};

struct AdagradParamState : public detail::TypedParamState<AdagradParamState> {
  TORCH_ARG(torch::Tensor, sum);
  TORCH_ARG(int64_t, step) = 0;

 public:
  static auto fields() {
    using S = AdagradParamState;
    return std::make_tuple(detail::StateField{"sum", &S::sum_},
                           detail::StateField{"step", &S::step_});
  }
};

class Adagrad
    : public detail::EmberOptimizer<AdagradOptions, AdagradParamState, ember::optim::Adagrad> {
 public:
  explicit Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults = {})
      : EmberOptimizer(std::move(param_groups), defaults) {}
  explicit Adagrad(std::vector<Tensor> params, AdagradOptions defaults = {})
      : EmberOptimizer(std::move(params), defaults) {}
};

}  // namespace torch::optim
