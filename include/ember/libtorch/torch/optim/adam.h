// LibTorch's Adam: AdamOptions(lr).betas(std::make_tuple(0.5, 0.999)).eps().weight_decay()
// .amsgrad(), AdamParamState (step, exp_avg, exp_avg_sq, max_exp_avg_sq), over ember's
// optim::Adam (Note [LibTorch optimizers over ember's]).
//
//   torch::optim::Adam optimizer(model->parameters(),
//                                torch::optim::AdamOptions(2e-4).betas(std::make_tuple(0.5,
//                                0.999)));
#pragma once

#include <cstdint>
#include <tuple>

#include "ember/optim/adam.h"
#include "torch/optim/detail/ember_optimizer.h"

namespace torch::optim {

struct AdamOptions : public detail::TypedOptions<AdamOptions> {
  AdamOptions(double lr = 1e-3) : lr_(lr) {}  // NOLINT: implicit, as LibTorch's
  typedef std::tuple<double, double> betas_t;
  TORCH_ARG(double, lr) = 1e-3;
  TORCH_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  TORCH_ARG(double, eps) = 1e-8;
  TORCH_ARG(double, weight_decay) = 0;
  TORCH_ARG(bool, amsgrad) = false;

 public:
  using EmberOptions = ember::optim::AdamOptions;
  static auto fields() {
    using O = AdamOptions;
    using E = EmberOptions;
    return std::make_tuple(detail::OptionField{"lr", &O::lr_, &E::lr},
                           detail::OptionField{"betas", &O::betas_, &E::betas},
                           detail::OptionField{"eps", &O::eps_, &E::eps},
                           detail::OptionField{"weight_decay", &O::weight_decay_, &E::weight_decay},
                           detail::OptionField{"amsgrad", &O::amsgrad_, &E::amsgrad});
  }
};

struct AdamParamState : public detail::TypedParamState<AdamParamState> {
  TORCH_ARG(int64_t, step) = 0;
  TORCH_ARG(torch::Tensor, exp_avg);
  TORCH_ARG(torch::Tensor, exp_avg_sq);
  TORCH_ARG(torch::Tensor, max_exp_avg_sq) = {};

 public:
  static auto fields() {
    using S = AdamParamState;
    return std::make_tuple(detail::StateField{"step", &S::step_},
                           detail::StateField{"exp_avg", &S::exp_avg_},
                           detail::StateField{"exp_avg_sq", &S::exp_avg_sq_},
                           detail::StateField{"max_exp_avg_sq", &S::max_exp_avg_sq_});
  }
};

class Adam : public detail::EmberOptimizer<AdamOptions, AdamParamState, ember::optim::Adam> {
 public:
  explicit Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults = {})
      : EmberOptimizer(std::move(param_groups), defaults) {}
  explicit Adam(std::vector<Tensor> params, AdamOptions defaults = {})
      : EmberOptimizer(std::move(params), defaults) {}
};

}  // namespace torch::optim
