// The Adam family (Adam, AdamW, Adamax, NAdam, RAdam): options, state and each step's scalars
// (bias corrections, step sizes) computed in double exactly as PyTorch's _single_tensor_*
// functions compute them; the fused updates are each device's OptimKernels (on the CPU,
// backend/cpu/optim_adam.cpp).
#include <cmath>

#include "ember/creation.h"
#include "ember/optim/adam.h"
#include "optim/fused.h"
#include "optim/group_options.h"

namespace ember::optim {

namespace {

const Betas kBetas{0.9, 0.999};

void check_common(const char* op, double lr, double eps, Betas betas, double wd) {
  EMBER_CHECK(lr >= 0, op, "Invalid learning rate: ", lr);
  EMBER_CHECK(eps >= 0, op, "Invalid epsilon value: ", eps);
  EMBER_CHECK(betas.first >= 0 && betas.first < 1, op, "Invalid beta parameter at index 0: ",
              betas.first);
  EMBER_CHECK(betas.second >= 0 && betas.second < 1, op, "Invalid beta parameter at index 1: ",
              betas.second);
  EMBER_CHECK(wd >= 0, op, "Invalid weight_decay value: ", wd);
}

// The state tensors of one parameter, created on its first step in PyTorch's key order.
struct Moments {
  Tensor step, first, second, extra;  // extra: max_exp_avg_sq (amsgrad) or mu_product (NAdam)
};

Tensor state_tensor(const char* op, Dict& st, const char* key, const Tensor& p) {
  Tensor t = st.at(Value(key)).to_tensor();
  detail::check_state(op, t, p, key);
  return t;
}

Moments moments(const char* op, Dict& st, const Tensor& p, const char* second_key,
                const char* extra_key) {
  const bool nadam = extra_key && std::string(extra_key) == "mu_product";
  if (st.empty()) {
    st.insert(Value("step"), Value(zeros({}, {.dtype = kFloat32})));
    if (nadam) st.insert(Value("mu_product"), Value(ones({}, {.dtype = kFloat32})));
    st.insert(Value("exp_avg"), Value(detail::zeros_like_param(p)));
    st.insert(Value(second_key), Value(detail::zeros_like_param(p)));
    if (extra_key && !nadam) st.insert(Value(extra_key), Value(detail::zeros_like_param(p)));
  }
  Moments m;
  m.step = st.at(Value("step")).to_tensor();
  m.first = state_tensor(op, st, "exp_avg", p);
  m.second = state_tensor(op, st, second_key, p);
  if (nadam) {
    // float32 when created; load_state_dict casts it to the parameter's dtype, as PyTorch does.
    m.extra = st.at(Value("mu_product")).to_tensor();
    EMBER_CHECK(m.extra.numel() == 1 && (m.extra.dtype() == kFloat32 || m.extra.dtype() == kFloat64),
                op, "state 'mu_product' must be a one-element float32 or float64 tensor");
  } else if (extra_key) {
    // amsgrad switched on after some steps: PyTorch would fail on the missing key; start at 0.
    if (!st.contains(Value(extra_key))) st.insert(Value(extra_key), Value(detail::zeros_like_param(p)));
    m.extra = state_tensor(op, st, extra_key, p);
  }
  return m;
}

Dict resolve_adam(const char* op, const AdamWOptions& g, const AdamWOptions& d, bool adamw) {
  detail::GroupOptionsBuilder b(op);
  const double lr = b.add("lr", g.lr, d.lr, {1e-3});
  const Betas betas = b.add("betas", g.betas, d.betas, {kBetas});
  const double eps = b.add("eps", g.eps, d.eps, {1e-8});
  const double wd = adamw ? b.add("weight_decay", g.weight_decay, d.weight_decay, {1e-2})
                          : b.add("weight_decay", g.weight_decay, d.weight_decay, {0.0}, true);
  b.add("amsgrad", g.amsgrad, d.amsgrad, {false});
  if (adamw) {  // AdamW's defaults dict orders foreach before maximize, and has no fused
    b.fixed("foreach", Value());
    b.add("maximize", g.maximize, d.maximize, {false});
    b.fixed("capturable", false);
  } else {
    b.add("maximize", g.maximize, d.maximize, {false});
    b.fixed("foreach", Value());
    b.fixed("capturable", false);
    b.fixed("differentiable", false);
    b.fixed("fused", false);
  }
  check_common(op, lr, eps, betas, wd);
  return b.finish();
}

void adam_update(Optimizer& opt, ParamGroup& group, bool decoupled) {
  const char* op = opt.name();
  const double lr = group.lr(), eps = group.get("eps"), wd = group.get("weight_decay");
  const Betas betas = group.get_betas();  // (not a structured binding: lambdas capture these)
  const double beta1 = betas.first, beta2 = betas.second;
  const bool amsgrad = group.get_bool("amsgrad"), maximize = group.get_bool("maximize");
  for (Tensor& p : group.params()) {
    if (!p.grad().defined()) continue;
    detail::check_param(op, p);
    Tensor grad = detail::dense_grad(op, p);
    Moments st = moments(op, opt.state(p), p, "exp_avg_sq", amsgrad ? "max_exp_avg_sq" : nullptr);
    const double step = detail::increment_step(st.step);
    const double bias_correction1 = 1 - std::pow(beta1, step);
    const double bias_correction2 = 1 - std::pow(beta2, step);
    const double step_size = lr / bias_correction1;
    const Tensor max_sq = amsgrad ? st.extra : Tensor();
    detail::update_kernel(op, {&p, &grad, &st.first, &st.second, &max_sq},
                          &backend::OptimKernels::adam)(
        p, grad, st.first, st.second, max_sq,
        {.beta1 = beta1, .beta2 = beta2, .l2 = decoupled ? 0.0 : wd, .decay = 1 - lr * wd,
         .bc2_sqrt = std::sqrt(bias_correction2), .eps = eps, .neg_step_size = -step_size,
         .maximize = maximize, .decoupled = decoupled});
    detail::mark_updated(p);
  }
}

AdamWOptions as_adamw(const AdamOptions& o) {
  return {o.lr, o.betas, o.eps, o.weight_decay, o.amsgrad, o.maximize};
}
}  // namespace

Dict resolve_options(const AdamOptions& g, const AdamOptions& d) {
  return resolve_adam("optim.Adam", as_adamw(g), as_adamw(d), false);
}
Dict resolve_options(const AdamWOptions& g, const AdamWOptions& d) {
  return resolve_adam("optim.AdamW", g, d, true);
}

namespace {
// The first four group keys of Adamax/NAdam/RAdam, in PyTorch's order, checked as PyTorch does.
template <class O>
void add_lr_betas_eps_decay(detail::GroupOptionsBuilder& b, const char* op, const O& g,
                            const O& d, double default_lr) {
  const double lr = b.add("lr", g.lr, d.lr, {default_lr});
  const Betas betas = b.add("betas", g.betas, d.betas, {kBetas});
  const double eps = b.add("eps", g.eps, d.eps, {1e-8});
  const double wd = b.add("weight_decay", g.weight_decay, d.weight_decay, {0.0}, true);
  check_common(op, lr, eps, betas, wd);
}
}  // namespace

Dict resolve_options(const AdamaxOptions& g, const AdamaxOptions& d) {
  detail::GroupOptionsBuilder b("optim.Adamax");
  add_lr_betas_eps_decay(b, "optim.Adamax", g, d, 2e-3);
  b.fixed("foreach", Value());
  b.add("maximize", g.maximize, d.maximize, {false});
  return b.finish();
}

Dict resolve_options(const NAdamOptions& g, const NAdamOptions& d) {
  detail::GroupOptionsBuilder b("optim.NAdam");
  add_lr_betas_eps_decay(b, "optim.NAdam", g, d, 2e-3);
  const double md = b.add("momentum_decay", g.momentum_decay, d.momentum_decay, {4e-3});
  b.fixed("foreach", Value());
  EMBER_CHECK(md >= 0, "optim.NAdam", "Invalid momentum_decay value: ", md);
  return b.finish();
}

Dict resolve_options(const RAdamOptions& g, const RAdamOptions& d) {
  detail::GroupOptionsBuilder b("optim.RAdam");
  add_lr_betas_eps_decay(b, "optim.RAdam", g, d, 1e-3);
  b.fixed("foreach", Value());
  return b.finish();
}

void Adam::update(ParamGroup& group) { adam_update(*this, group, false); }
void AdamW::update(ParamGroup& group) { adam_update(*this, group, true); }

void Adamax::update(ParamGroup& group) {
  const double lr = group.lr(), eps = group.get("eps"), wd = group.get("weight_decay");
  const Betas betas = group.get_betas();  // (not a structured binding: lambdas capture these)
  const double beta1 = betas.first, beta2 = betas.second;
  const bool maximize = group.get_bool("maximize");
  for (Tensor& p : group.params()) {
    if (!p.grad().defined()) continue;
    detail::check_param(name(), p);
    Tensor grad = detail::dense_grad(name(), p);
    Moments st = moments(name(), state(p), p, "exp_inf", nullptr);
    const double step = detail::increment_step(st.step);
    const double clr = lr / (1 - std::pow(beta1, step));
    detail::update_kernel(name(), {&p, &grad, &st.first, &st.second},
                          &backend::OptimKernels::adamax)(
        p, grad, st.first, st.second,
        {.beta1 = beta1, .beta2 = beta2, .l2 = wd, .eps = eps, .neg_clr = -clr,
         .maximize = maximize});
    detail::mark_updated(p);
  }
}

void NAdam::update(ParamGroup& group) {
  const double lr = group.lr(), eps = group.get("eps"), wd = group.get("weight_decay"),
               momentum_decay = group.get("momentum_decay");
  const Betas betas = group.get_betas();  // (not a structured binding: lambdas capture these)
  const double beta1 = betas.first, beta2 = betas.second;
  for (Tensor& p : group.params()) {
    if (!p.grad().defined()) continue;
    detail::check_param(name(), p);
    Tensor grad = detail::dense_grad(name(), p);
    Moments st = moments(name(), state(p), p, "exp_avg_sq", "mu_product");
    const double step = detail::increment_step(st.step);
    const double bias_correction2 = 1 - std::pow(beta2, step);
    // The momentum cache mu_t and mu_{t+1}; mu_product is a float32 tensor in PyTorch, so its
    // products round to float32 (and 1.13 multiplies mu in twice for mu_product_next).
    const double mu = beta1 * (1. - 0.5 * std::pow(0.96, step * momentum_decay));
    const double mu_next = beta1 * (1. - 0.5 * std::pow(0.96, (step + 1) * momentum_decay));
    double mu_product, mu_product_next;
    // A host scalar (created on the CPU, as PyTorch does), float32 or float64 (checked above).
    const auto advance = [&]<class M>() {
      M* prod = st.extra.data_ptr<M>();
      *prod = *prod * M(mu);
      mu_product = *prod;
      mu_product_next = double((*prod * M(mu)) * M(mu_next));
    };
    if (st.extra.dtype() == kFloat64)
      advance.template operator()<double>();
    else
      advance.template operator()<float>();
    st.extra.impl()->storage()->bump_version();
    const double grad_coef = -lr * (1. - mu) / (1. - mu_product);
    const double avg_coef = -lr * mu_next / (1. - mu_product_next);
    detail::update_kernel(name(), {&p, &grad, &st.first, &st.second},
                          &backend::OptimKernels::nadam)(
        p, grad, st.first, st.second,
        {.beta1 = beta1, .beta2 = beta2, .l2 = wd, .eps = eps,
         .bias_correction2 = bias_correction2, .grad_coef = grad_coef, .avg_coef = avg_coef});
    detail::mark_updated(p);
  }
}

void RAdam::update(ParamGroup& group) {
  const double lr = group.lr(), eps = group.get("eps"), wd = group.get("weight_decay");
  const Betas betas = group.get_betas();  // (not a structured binding: lambdas capture these)
  const double beta1 = betas.first, beta2 = betas.second;
  for (Tensor& p : group.params()) {
    if (!p.grad().defined()) continue;
    detail::check_param(name(), p);
    Tensor grad = detail::dense_grad(name(), p);
    Moments st = moments(name(), state(p), p, "exp_avg_sq", nullptr);
    const double step = detail::increment_step(st.step);
    const double bias_correction1 = 1 - std::pow(beta1, step);
    const double bias_correction2 = 1 - std::pow(beta2, step);
    // Length of the approximated simple moving average; rectify once it exceeds 5.
    const double rho_inf = 2 / (1 - beta2) - 1;
    const double rho_t = rho_inf - 2 * step * std::pow(beta2, step) / bias_correction2;
    const bool rectify = rho_t > 5.;
    const double rect =
        rectify ? std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf /
                            ((rho_inf - 4) * (rho_inf - 2) * rho_t))
                : 0.0;
    detail::update_kernel(name(), {&p, &grad, &st.first, &st.second},
                          &backend::OptimKernels::radam)(
        p, grad, st.first, st.second,
        {.beta1 = beta1, .beta2 = beta2, .l2 = wd, .eps = eps,
         .bias_correction1 = bias_correction1, .lr = lr, .rectify = rectify,
         .bc2_sqrt = std::sqrt(bias_correction2), .rect = rect});
    detail::mark_updated(p);
  }
}

}  // namespace ember::optim
