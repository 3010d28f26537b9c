// The strong-Wolfe line search of torch.optim.LBFGS, step for step as PyTorch 1.13 takes it (so
// the same closure sees the same steps): a bracketing phase that grows t by cubic
// extrapolation, then a zoom phase that shrinks the bracket by cubic interpolation, with
// PyTorch's guard against steps too close to the bracket's ends.
#include "optim/line_search.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "ember/reduce.h"

namespace ember::optim::detail {

double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2,
                         std::optional<std::pair<double, double>> bounds) {
  const auto [lo, hi] = bounds ? *bounds : std::pair{std::min(x1, x2), std::max(x1, x2)};
  // Nocedal & Wright (3.59).
  const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  const double d2_square = d1 * d1 - g1 * g2;
  if (d2_square < 0) return (lo + hi) / 2;
  const double d2 = std::sqrt(d2_square);
  const double min_pos = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                                  : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
  return std::min(std::max(min_pos, lo), hi);
}

namespace {

// One end of the bracket: a step and the loss, gradient and slope there.
struct Point {
  double t, f;
  Tensor g;
  double gtd;
};

}  // namespace

LineSearchResult strong_wolfe(const DirectionalObjective& objective, double t, const Tensor& d,
                              double f, const Tensor& g, double gtd, double c1, double c2,
                              double tolerance_change, int max_ls) {
  const double d_norm = d.abs().max().item<double>();
  auto [f_new, g_new] = objective(t);
  int64_t evals = 1;
  double gtd_new = g_new.dot(d).item<double>();
  // The objective returns a fresh gradient each time and nothing writes one in place, so the
  // points share them (PyTorch clones each, defensively).
  Point prev{0.0, f, g, gtd};
  std::array<Point, 2> bracket;
  int n = 0;  // points in the bracket: 1 when t already satisfies the conditions
  bool done = false;
  int ls_iter = 0;
  // Bracketing: grow t until [prev, t] holds a point satisfying the conditions.
  while (ls_iter < max_ls) {
    const Point here{t, f_new, g_new, gtd_new};
    // Written as PyTorch's test (a NaN loss is not "too high"), not as its negation.
    const bool too_high = f_new > f + c1 * t * gtd || (ls_iter > 1 && f_new >= prev.f);
    if (!too_high && std::abs(gtd_new) <= -c2 * gtd) {
      bracket[0] = here;
      n = 1;
      done = true;
      break;
    }
    if (too_high || gtd_new >= 0) {
      bracket = {prev, here};
      n = 2;
      break;
    }
    const double min_step = t + 0.01 * (t - prev.t), max_step = t * 10;
    t = cubic_interpolate(prev.t, prev.f, prev.gtd, t, f_new, gtd_new, {{min_step, max_step}});
    prev = here;
    std::tie(f_new, g_new) = objective(t);
    ++evals;
    gtd_new = g_new.dot(d).item<double>();
    ++ls_iter;
  }
  if (ls_iter == max_ls) {  // no bracket found: the zoom below does not run
    bracket = {Point{0.0, f, g, gtd}, Point{t, f_new, g_new, gtd_new}};
    n = 2;
  }

  // Zoom: shrink the bracket until its low end satisfies the conditions.
  bool insufficient_progress = false;
  int low = bracket[0].f <= bracket[n - 1].f ? 0 : 1, high = 1 - low;
  while (!done && ls_iter < max_ls) {
    if (std::abs(bracket[1].t - bracket[0].t) * d_norm < tolerance_change) break;
    t = cubic_interpolate(bracket[0].t, bracket[0].f, bracket[0].gtd, bracket[1].t, bracket[1].f,
                          bracket[1].gtd);
    // A step within 10% of the bracket's width from an end makes little progress: on the
    // second such step in a row (or one outside the bracket) move it 10% inside.
    const double b_max = std::max(bracket[0].t, bracket[1].t);
    const double b_min = std::min(bracket[0].t, bracket[1].t);
    const double eps = 0.1 * (b_max - b_min);
    if (std::min(b_max - t, t - b_min) < eps) {
      if (insufficient_progress || t >= b_max || t <= b_min) {
        t = std::abs(t - b_max) < std::abs(t - b_min) ? b_max - eps : b_min + eps;
        insufficient_progress = false;
      } else {
        insufficient_progress = true;
      }
    } else {
      insufficient_progress = false;
    }
    std::tie(f_new, g_new) = objective(t);
    ++evals;
    gtd_new = g_new.dot(d).item<double>();
    ++ls_iter;
    const Point here{t, f_new, g_new, gtd_new};
    if (f_new > f + c1 * t * gtd || f_new >= bracket[low].f) {
      bracket[high] = here;
      low = bracket[0].f <= bracket[1].f ? 0 : 1;
      high = 1 - low;
    } else {
      if (std::abs(gtd_new) <= -c2 * gtd) {
        done = true;
      } else if (gtd_new * (bracket[high].t - bracket[low].t) >= 0) {
        bracket[high] = bracket[low];
      }
      bracket[low] = here;
    }
  }
  const Point& best = bracket[low];
  return {best.f, best.g, best.t, evals};
}

}  // namespace ember::optim::detail
