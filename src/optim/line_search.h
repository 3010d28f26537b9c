// The strong-Wolfe line search torch.optim.LBFGS uses (torch/optim/lbfgs.py, 1.13: after
// Nocedal & Wright's Algorithms 3.5/3.6, with cubic interpolation inside a bracket), over an
// objective that evaluates the loss and flat gradient a step t along the search direction.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>

#include "ember/tensor.h"

namespace ember::optim::detail {

/// The minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2, clamped to
/// bounds (default: [min(x1, x2), max(x1, x2)]); the bounds' midpoint if the cubic has none.
double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2,
                         std::optional<std::pair<double, double>> bounds = {});

struct LineSearchResult {
  double loss;  // at the accepted step
  Tensor flat_grad;
  double t;  // the accepted step
  int64_t func_evals;
};

/// (loss, flat gradient) at x + t * d; the parameters are restored to x afterwards.
using DirectionalObjective = std::function<std::pair<double, Tensor>(double t)>;

/// Looks for t satisfying the strong Wolfe conditions from the initial step t, given the loss f,
/// flat gradient g and directional derivative gtd at t = 0.
LineSearchResult strong_wolfe(const DirectionalObjective& objective, double t, const Tensor& d,
                              double f, const Tensor& g, double gtd, double c1 = 1e-4,
                              double c2 = 0.9, double tolerance_change = 1e-9, int max_ls = 25);

}  // namespace ember::optim::detail
