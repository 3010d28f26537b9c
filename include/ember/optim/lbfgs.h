// L-BFGS, as torch.optim.LBFGS 1.13: a limited-memory quasi-Newton method over all parameters
// flattened into one vector, optionally with a strong-Wolfe line search. step() needs a closure,
// which it evaluates several times (zero the gradients and return the loss in it). One parameter
// group only, as PyTorch. State (on the first parameter, PyTorch's layout): "func_evals",
// "n_iter", "d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad", "prev_loss", "al".
//
//   optim::LBFGS opt(params, {.lr = 1, .line_search_fn = "strong_wolfe"});
//   opt.step([&] { opt.zero_grad(); Tensor loss = f(x); loss.backward(); return loss; });
#pragma once

#include <string>

#include "ember/optim/optimizer.h"

namespace ember::optim {

/// Fields in torch.optim.LBFGS's argument order.
struct LBFGSOptions {
  static constexpr const char* kName = "optim.LBFGS";
  Setting<double> lr = {};                   // 1
  Setting<int64_t> max_iter = {};            // 20: iterations per step()
  Setting<int64_t> max_eval = {};            // max_iter * 5 / 4: closure calls per step()
  Setting<double> tolerance_grad = {};       // 1e-7: stop when max |grad| is below it
  Setting<double> tolerance_change = {};     // 1e-9: stop when a step or the loss moves less
  Setting<int64_t> history_size = {};        // 100
  Setting<std::string> line_search_fn = {};  // unset (a fixed step of lr), or "strong_wolfe"
};
Dict resolve_options(const LBFGSOptions& group, const LBFGSOptions& defaults);

class LBFGS : public OptimizerWith<LBFGSOptions> {
 public:
  explicit LBFGS(std::vector<Tensor> params, LBFGSOptions defaults = {});
  explicit LBFGS(std::vector<Group> groups, LBFGSOptions defaults = {});
  LBFGS(std::vector<Tensor> params, double lr) : LBFGS(std::move(params), {.lr = lr}) {}

 protected:
  /// Up to max_iter iterations; returns the loss of the closure's first evaluation.
  Tensor run_step(const std::function<Tensor()>& closure) override;
  void update(ParamGroup& group) override;  // never called: run_step drives the iterations
};

}  // namespace ember::optim
