// L-BFGS as torch.optim.LBFGS 1.13 (torch/optim/lbfgs.py): the two-loop recursion over the last
// history_size (s, y) pairs, a first step of min(1, 1 / |g|_1) * lr, then lr or the strong-Wolfe
// line search (optim/line_search.cpp). The curvature scalars (ys, ro, H_diag, al) are 0-d
// tensors as PyTorch keeps them, so they round in the parameters' dtype as there.
#include "ember/optim/lbfgs.h"

#include <algorithm>
#include <cmath>

#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/math.h"
#include "ember/reduce.h"
#include "ember/shape.h"
#include "optim/group_options.h"
#include "optim/line_search.h"

namespace ember::optim {

Dict resolve_options(const LBFGSOptions& g, const LBFGSOptions& d) {
  const char* op = "optim.LBFGS";
  detail::GroupOptionsBuilder b(op);
  b.add("lr", g.lr, d.lr, {1.0}, true);
  const int64_t max_iter = b.add("max_iter", g.max_iter, d.max_iter, {20});
  b.add("max_eval", g.max_eval, d.max_eval, {max_iter * 5 / 4});
  b.add("tolerance_grad", g.tolerance_grad, d.tolerance_grad, {1e-7});
  b.add("tolerance_change", g.tolerance_change, d.tolerance_change, {1e-9});
  b.add("history_size", g.history_size, d.history_size, {100});
  if (g.line_search_fn.has_value() || d.line_search_fn.has_value()) {
    const std::string fn = b.add("line_search_fn", g.line_search_fn, d.line_search_fn, {});
    // PyTorch raises this at the first step; ember refuses the option where it is given.
    EMBER_CHECK(fn == "strong_wolfe", op, "only 'strong_wolfe' is supported, got '", fn, "'");
  } else {
    b.fixed("line_search_fn", Value());
  }
  return b.finish();
}

namespace {

void check_one_group(const Optimizer& o) {
  EMBER_CHECK(o.param_groups().size() == 1, o.name(),
              "LBFGS doesn't support per-parameter options (parameter groups)");
}

// The parameters' gradients as one vector (zeros for a parameter without one).
Tensor gather_flat_grad(const std::vector<Tensor>& params) {
  std::vector<Tensor> views;
  for (const Tensor& p : params)
    views.push_back(p.grad().defined() ? p.grad().reshape({-1}) : zeros({p.numel()}, p.options()));
  return cat(views, 0);
}

// params += step * d, d cut into each parameter's shape.
void add_direction(const std::vector<Tensor>& params, double step, const Tensor& d) {
  int64_t offset = 0;
  for (const Tensor& p : params) {
    const int64_t n = p.numel();
    p.add_(d.narrow(0, offset, n).view(p.sizes()), step);
    offset += n;
  }
}

Tensor max_abs(const Tensor& t) { return t.abs().max(); }

// PyTorch's list state: a List of tensors (or None) in the state Dict.
std::vector<Tensor> tensors_of(const Dict& st, const char* key) {
  std::vector<Tensor> out;
  if (!st.contains(Value(key))) return out;
  for (const Value& v : st.at(Value(key)).to_list())
    out.push_back(v.is_none() ? Tensor() : v.to_tensor());
  return out;
}

Value list_of(const std::vector<Tensor>& ts) {
  List out;
  for (const Tensor& t : ts) out.push_back(t.defined() ? Value(t) : Value());
  return Value(std::move(out));
}

void drop_first(std::vector<Tensor>& v) { v.erase(v.begin()); }

}  // namespace

LBFGS::LBFGS(std::vector<Tensor> params, LBFGSOptions defaults)
    : OptimizerWith(std::move(params), std::move(defaults)) {
  check_one_group(*this);
}

LBFGS::LBFGS(std::vector<Group> groups, LBFGSOptions defaults)
    : OptimizerWith(std::move(groups), std::move(defaults)) {
  check_one_group(*this);
}

void LBFGS::update(ParamGroup&) {
  EMBER_CHECK(false, name(), "internal: LBFGS steps through run_step, never update()");
}

Tensor LBFGS::run_step(const std::function<Tensor()>& closure) {
  check_one_group(*this);
  EMBER_CHECK(closure != nullptr, name(),
              "step() needs a closure that re-evaluates the model and returns the loss");
  ParamGroup& group = param_groups()[0];
  const std::vector<Tensor>& params = group.params();
  const double lr = group.lr(), tolerance_grad = group.get("tolerance_grad"),
               tolerance_change = group.get("tolerance_change");
  const int64_t max_iter = int64_t(group.get("max_iter")),
                max_eval = int64_t(group.get("max_eval")),
                history_size = int64_t(group.get("history_size"));
  const Value& line_search_fn = group.options().at(Value("line_search_fn"));
  const bool line_search = !line_search_fn.is_none();
  EMBER_CHECK(
      !line_search || (line_search_fn.is_string() && line_search_fn.to_string() == "strong_wolfe"),
      name(), "only 'strong_wolfe' is supported");

  auto evaluate = [&] {
    EnableGradGuard enable;
    return closure();
  };
  NoGradGuard no_grad;
  Dict& st = state(params.front());
  if (!st.contains(Value("func_evals"))) st.insert(Value("func_evals"), Value(int64_t(0)));
  if (!st.contains(Value("n_iter"))) st.insert(Value("n_iter"), Value(int64_t(0)));
  auto count = [&](const char* key, int64_t by) {
    Value& v = st[Value(key)];
    v = Value(v.to_int() + by);
    return v.to_int();
  };

  const Tensor orig_loss = evaluate();
  double loss = orig_loss.item<double>();
  int64_t current_evals = 1;
  count("func_evals", 1);
  Tensor flat_grad = gather_flat_grad(params);
  if (max_abs(flat_grad).item<double>() <= tolerance_grad) return orig_loss;

  // The state the previous step() left.
  auto get = [&](const char* key) { return st.contains(Value(key)) ? st.at(Value(key)) : Value(); };
  Tensor d = get("d").is_none() ? Tensor() : get("d").to_tensor();
  double t = get("t").is_none() ? lr : get("t").to_double();
  std::vector<Tensor> old_dirs = tensors_of(st, "old_dirs"), old_stps = tensors_of(st, "old_stps"),
                      ro = tensors_of(st, "ro"), al = tensors_of(st, "al");
  Value h_diag = get("H_diag");
  Tensor prev_flat_grad =
      get("prev_flat_grad").is_none() ? Tensor() : get("prev_flat_grad").to_tensor();
  double prev_loss = get("prev_loss").is_none() ? 0.0 : get("prev_loss").to_double();

  for (int64_t n_iter = 1; n_iter <= max_iter; ++n_iter) {
    const int64_t total_iter = count("n_iter", 1);
    // The search direction: steepest descent at first, then the two-loop recursion.
    if (total_iter == 1) {
      d = flat_grad.neg();
      old_dirs.clear();
      old_stps.clear();
      ro.clear();
      h_diag = Value(int64_t(1));
    } else {
      const Tensor y = flat_grad.sub(prev_flat_grad), s = d.mul(t), ys = y.dot(s);
      if (ys.item<double>() > 1e-10) {  // keep only pairs of positive curvature
        if (int64_t(old_dirs.size()) == history_size) {
          drop_first(old_dirs);
          drop_first(old_stps);
          drop_first(ro);
        }
        old_dirs.push_back(y);
        old_stps.push_back(s);
        ro.push_back(ys.reciprocal());
        h_diag = Value(ys / y.dot(y));
      }
      // "al" is made at the first two-loop iteration, so its key comes where PyTorch's does.
      if (al.empty()) {
        al.resize(size_t(history_size));
        st.insert(Value("al"), Value());
      }
      Tensor q = flat_grad.neg();
      for (int64_t i = int64_t(old_dirs.size()) - 1; i >= 0; --i) {
        al[i] = old_stps[i].dot(q) * ro[i];
        q.add_(old_dirs[i], -al[i].item<double>());
      }
      Tensor r = h_diag.is_tensor() ? q.mul(h_diag.to_tensor()) : q.mul(h_diag.to_double());
      for (size_t i = 0; i < old_dirs.size(); ++i) {
        const Tensor be_i = old_dirs[i].dot(r) * ro[i];
        r.add_(old_stps[i], (al[i] - be_i).item<double>());
      }
      d = r;
    }
    if (prev_flat_grad.defined())
      prev_flat_grad.copy_(flat_grad);
    else
      prev_flat_grad = flat_grad.clone();
    prev_loss = loss;

    // The step length: scaled by the gradient's size at the very first iteration.
    if (total_iter == 1) {
      const Tensor inv = flat_grad.abs().sum().reciprocal();
      t = inv.item<double>() < 1.0 ? (inv * lr).item<double>() : lr;
    } else {
      t = lr;
    }
    const double gtd = flat_grad.dot(d).item<double>();
    if (gtd > -tolerance_change) break;  // not a descent direction

    int64_t ls_func_evals = 0;
    bool optimal = false;
    if (line_search) {
      std::vector<Tensor> x_init;
      for (const Tensor& p : params) x_init.push_back(p.clone());
      auto objective = [&](double step) {
        add_direction(params, step, d);
        const double f = evaluate().item<double>();
        Tensor g = gather_flat_grad(params);
        for (size_t i = 0; i < params.size(); ++i) params[i].copy_(x_init[i]);
        return std::pair{f, g};
      };
      auto found = detail::strong_wolfe(objective, t, d, loss, flat_grad, gtd);
      loss = found.loss;
      flat_grad = found.flat_grad;
      t = found.t;
      ls_func_evals = found.func_evals;
      add_direction(params, t, d);
      optimal = max_abs(flat_grad).item<double>() <= tolerance_grad;
    } else {
      add_direction(params, t, d);
      if (n_iter != max_iter) {  // the last iteration's loss is left to the next step()
        loss = evaluate().item<double>();
        flat_grad = gather_flat_grad(params);
        optimal = max_abs(flat_grad).item<double>() <= tolerance_grad;
        ls_func_evals = 1;
      }
    }
    current_evals += ls_func_evals;
    count("func_evals", ls_func_evals);

    if (n_iter == max_iter || current_evals >= max_eval || optimal) break;
    if (max_abs(d.mul(t)).item<double>() <= tolerance_change) break;
    if (std::abs(loss - prev_loss) < tolerance_change) break;
  }

  st[Value("d")] = d.defined() ? Value(d) : Value();
  st[Value("t")] = Value(t);
  st[Value("old_dirs")] = list_of(old_dirs);
  st[Value("old_stps")] = list_of(old_stps);
  st[Value("ro")] = list_of(ro);
  if (!al.empty()) st[Value("al")] = list_of(al);
  st[Value("H_diag")] = h_diag;
  st[Value("prev_flat_grad")] = Value(prev_flat_grad);
  st[Value("prev_loss")] = Value(prev_loss);
  return orig_loss;
}

}  // namespace ember::optim
