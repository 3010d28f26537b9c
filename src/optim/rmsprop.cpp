// RMSprop and Adagrad: options, state and each step's scalars; the fused updates are each
// device's OptimKernels (on the CPU, backend/cpu/optim_rmsprop.cpp), in PyTorch's
// _single_tensor_* operation order:
//   RMSprop: sq = alpha*sq + (1-alpha)*g*g; avg = sqrt(sq [- ga*ga]) + eps;
//            momentum ? (buf = momentum*buf + g/avg; p -= lr*buf) : p -= lr * g/avg
//   Adagrad: sum += g*g; p -= clr * g / (sqrt(sum) + eps), clr = lr / (1 + (step-1)*lr_decay)
#include <cmath>

#include "ember/creation.h"
#include "ember/optim/rmsprop.h"
#include "optim/fused.h"
#include "optim/group_options.h"

namespace ember::optim {


namespace {

Tensor buffer(const char* op, Dict& st, const char* key, const Tensor& p) {
  Tensor t = st.at(Value(key)).to_tensor();
  detail::check_state(op, t, p, key);
  return t;
}

}  // namespace

Dict resolve_options(const RMSpropOptions& g, const RMSpropOptions& d) {
  const char* op = "optim.RMSprop";
  detail::GroupOptionsBuilder b(op);
  const double lr = b.add("lr", g.lr, d.lr, {1e-2});
  const double momentum = b.add("momentum", g.momentum, d.momentum, {0.0}, true);
  const double alpha = b.add("alpha", g.alpha, d.alpha, {0.99});
  const double eps = b.add("eps", g.eps, d.eps, {1e-8});
  b.add("centered", g.centered, d.centered, {false});
  const double wd = b.add("weight_decay", g.weight_decay, d.weight_decay, {0.0}, true);
  b.fixed("foreach", Value());
  b.add("maximize", g.maximize, d.maximize, {false});
  b.fixed("differentiable", false);
  EMBER_CHECK(lr >= 0, op, "Invalid learning rate: ", lr);
  EMBER_CHECK(eps >= 0, op, "Invalid epsilon value: ", eps);
  EMBER_CHECK(momentum >= 0, op, "Invalid momentum value: ", momentum);
  EMBER_CHECK(wd >= 0, op, "Invalid weight_decay value: ", wd);
  EMBER_CHECK(alpha >= 0, op, "Invalid alpha value: ", alpha);
  return b.finish();
}

void RMSprop::update(ParamGroup& group) {
  const double lr = group.lr(), alpha = group.get("alpha"), eps = group.get("eps"),
               wd = group.get("weight_decay"), momentum = group.get("momentum");
  const bool centered = group.get_bool("centered"), maximize = group.get_bool("maximize");
  for (Tensor& p : group.params()) {
    if (!p.grad().defined()) continue;
    detail::check_param(name(), p);
    Tensor grad = detail::dense_grad(name(), p);
    Dict& st = state(p);
    if (st.empty()) {
      st.insert(Value("step"), Value(int64_t(0)));
      st.insert(Value("square_avg"), Value(detail::zeros_like_param(p)));
      if (momentum > 0) st.insert(Value("momentum_buffer"), Value(detail::zeros_like_param(p)));
      if (centered) st.insert(Value("grad_avg"), Value(detail::zeros_like_param(p)));
    }
    st.insert(Value("step"), Value(st.at(Value("step")).to_int() + 1));
    Tensor sq = buffer(name(), st, "square_avg", p);
    Tensor buf = momentum > 0 ? buffer(name(), st, "momentum_buffer", p) : Tensor();
    Tensor ga = centered ? buffer(name(), st, "grad_avg", p) : Tensor();
    detail::update_kernel(name(), {&p, &grad, &sq, &ga, &buf}, &backend::OptimKernels::rmsprop)(
        p, grad, sq, ga, buf,
        {.lr = lr, .alpha = alpha, .eps = eps, .l2 = wd, .momentum = momentum,
         .maximize = maximize});
    detail::mark_updated(p);
  }
}

Dict resolve_options(const AdagradOptions& g, const AdagradOptions& d) {
  const char* op = "optim.Adagrad";
  detail::GroupOptionsBuilder b(op);
  const double lr = b.add("lr", g.lr, d.lr, {1e-2});
  const double lr_decay = b.add("lr_decay", g.lr_decay, d.lr_decay, {0.0}, true);
  const double eps = b.add("eps", g.eps, d.eps, {1e-10});
  const double wd = b.add("weight_decay", g.weight_decay, d.weight_decay, {0.0}, true);
  const double init = b.add("initial_accumulator_value", g.initial_accumulator_value,
                            d.initial_accumulator_value, {0.0}, true);
  b.fixed("foreach", Value());
  b.add("maximize", g.maximize, d.maximize, {false});
  EMBER_CHECK(lr >= 0, op, "Invalid learning rate: ", lr);
  EMBER_CHECK(lr_decay >= 0, op, "Invalid lr_decay value: ", lr_decay);
  EMBER_CHECK(wd >= 0, op, "Invalid weight_decay value: ", wd);
  EMBER_CHECK(init >= 0, op, "Invalid initial_accumulator_value value: ", init);
  EMBER_CHECK(eps >= 0, op, "Invalid epsilon value: ", eps);
  return b.finish();
}

Adagrad::Adagrad(std::vector<Tensor> params, AdagradOptions defaults)
    : OptimizerWith(std::move(params), defaults) {
  for (const ParamGroup& g : param_groups()) init_state(g);
}

Adagrad::Adagrad(std::vector<Group> groups, AdagradOptions defaults)
    : OptimizerWith(std::move(groups), defaults) {
  for (const ParamGroup& g : param_groups()) init_state(g);
}

void Adagrad::init_state(const ParamGroup& group) {
  // PyTorch 1.13 fills "sum" with the constructor's initial_accumulator_value, not the group's.
  const double init = defaults().initial_accumulator_value.has_value()
                          ? defaults().initial_accumulator_value.value()
                          : 0.0;
  for (const Tensor& p : group.params()) {
    Dict& st = state(p);
    if (!st.empty()) continue;
    st.insert(Value("step"), Value(zeros({}, {.dtype = kFloat32})));
    st.insert(Value("sum"), Value(full(p.sizes(), init, {.dtype = p.dtype(), .device = p.device()})));
  }
}

void Adagrad::update(ParamGroup& group) {
  init_state(group);  // groups added after construction
  const double lr = group.lr(), lr_decay = group.get("lr_decay"), eps = group.get("eps"),
               wd = group.get("weight_decay");
  const bool maximize = group.get_bool("maximize");
  for (Tensor& p : group.params()) {
    if (!p.grad().defined()) continue;
    detail::check_param(name(), p);
    Tensor grad = detail::dense_grad(name(), p);
    Dict& st = state(p);
    Tensor step_t = st.at(Value("step")).to_tensor();
    const double step = detail::increment_step(step_t);
    const double clr = lr / (1 + (step - 1) * lr_decay);
    Tensor sum = buffer(name(), st, "sum", p);
    detail::update_kernel(name(), {&p, &grad, &sum}, &backend::OptimKernels::adagrad)(
        p, grad, sum, {.neg_clr = -clr, .l2 = wd, .eps = eps, .maximize = maximize});
    detail::mark_updated(p);
  }
}

}  // namespace ember::optim
