// LibTorch's LBFGS: LBFGSOptions(lr).max_iter().max_eval().tolerance_grad().tolerance_change()
// .history_size().line_search_fn("strong_wolfe"), LBFGSParamState, step(closure), over ember's
// optim::LBFGS (Note [LibTorch optimizers over ember's]). One parameter group, as LibTorch.
//
//   torch::optim::LBFGS optimizer(model->parameters(), torch::optim::LBFGSOptions(1).max_iter(20));
//   optimizer.step([&] { optimizer.zero_grad(); auto loss = f(); loss.backward(); return loss; });
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/optim/lbfgs.h"
#include "torch/optim/detail/ember_optimizer.h"

namespace torch::optim {

struct LBFGSOptions : public detail::TypedOptions<LBFGSOptions> {
  LBFGSOptions(double lr = 1) : lr_(lr) {}  // NOLINT: implicit, as LibTorch's
  TORCH_ARG(double, lr) = 1;
  TORCH_ARG(int64_t, max_iter) = 20;
  TORCH_ARG(std::optional<int64_t>, max_eval) = std::nullopt;  // unset: max_iter * 5 / 4
  TORCH_ARG(double, tolerance_grad) = 1e-7;
  TORCH_ARG(double, tolerance_change) = 1e-9;
  TORCH_ARG(int64_t, history_size) = 100;
  TORCH_ARG(std::optional<std::string>, line_search_fn) = std::nullopt;  // or "strong_wolfe"

 public:
  using EmberOptions = ember::optim::LBFGSOptions;
  static auto fields() {
    using O = LBFGSOptions;
    using E = EmberOptions;
    return std::make_tuple(
        detail::OptionField{"lr", &O::lr_, &E::lr},
        detail::OptionField{"max_iter", &O::max_iter_, &E::max_iter},
        detail::OptionField{"max_eval", &O::max_eval_, &E::max_eval},
        detail::OptionField{"tolerance_grad", &O::tolerance_grad_, &E::tolerance_grad},
        detail::OptionField{"tolerance_change", &O::tolerance_change_, &E::tolerance_change},
        detail::OptionField{"history_size", &O::history_size_, &E::history_size},
        detail::OptionField{"line_search_fn", &O::line_search_fn_, &E::line_search_fn});
  }
};

struct LBFGSParamState : public detail::TypedParamState<LBFGSParamState> {
  TORCH_ARG(int64_t, func_evals) = 0;
  TORCH_ARG(int64_t, n_iter) = 0;
  TORCH_ARG(double, t) = 0;
  TORCH_ARG(double, prev_loss) = 0;
  TORCH_ARG(torch::Tensor, d) = {};
  TORCH_ARG(torch::Tensor, H_diag) = {};
  TORCH_ARG(torch::Tensor, prev_flat_grad) = {};
  TORCH_ARG(std::deque<torch::Tensor>, old_dirs);
  TORCH_ARG(std::deque<torch::Tensor>, old_stps);
  TORCH_ARG(std::deque<torch::Tensor>, ro);
  TORCH_ARG(std::optional<std::vector<torch::Tensor>>, al) = std::nullopt;

 public:
  static auto fields() {
    using S = LBFGSParamState;
    return std::make_tuple(
        detail::StateField{"func_evals", &S::func_evals_},
        detail::StateField{"n_iter", &S::n_iter_}, detail::StateField{"t", &S::t_},
        detail::StateField{"prev_loss", &S::prev_loss_}, detail::StateField{"d", &S::d_},
        detail::StateField{"H_diag", &S::H_diag_},
        detail::StateField{"prev_flat_grad", &S::prev_flat_grad_},
        detail::StateField{"old_dirs", &S::old_dirs_},
        detail::StateField{"old_stps", &S::old_stps_}, detail::StateField{"ro", &S::ro_},
        detail::StateField{"al", &S::al_});
  }
};

class LBFGS : public detail::EmberOptimizer<LBFGSOptions, LBFGSParamState, ember::optim::LBFGS> {
 public:
  explicit LBFGS(std::vector<OptimizerParamGroup> param_groups, LBFGSOptions defaults = {})
      : EmberOptimizer(std::move(param_groups), defaults) {}
  explicit LBFGS(std::vector<Tensor> params, LBFGSOptions defaults = {})
      : EmberOptimizer(std::move(params), defaults) {}
};

}  // namespace torch::optim
