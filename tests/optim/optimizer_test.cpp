// Optimizers against PyTorch 1.13: golden/optim.json (written by golden/gen_optim.py) holds, for
// every optimizer and option mix, 30 steps of a two-group problem in float64 and float32 — every
// parameter after every step and the final state_dict() with Python types. Checked here: the
// trajectories (max relative error 1e-6 in float64, 1e-5 in float32), the state_dict structure
// (keys, order, int/float/bool/tuple/None kinds, tensor dtypes and values), that loading a state
// dict mid-run continues identically, and the base behaviours (zero_grad, closures, errors).
#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/optim.h>

#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_support.h"

using namespace ember;
using json = nlohmann::json;

namespace {

const json& golden() {
  static const json j = test::load_golden("optim.json");
  return j;
}

const char* kNames[] = {"w", "b", "z"};

Tensor from_list(const json& v, const json& shape, Dtype dtype) {
  std::vector<double> d = v.get<std::vector<double>>();
  Tensor t = from_vector(d, shape.get<std::vector<int64_t>>());
  return t.to(dtype);
}

// The problem's parameters (fresh leaves) and gradient coefficients.
struct Problem {
  std::vector<Tensor> params, a, c;
  explicit Problem(Dtype dtype) {
    for (const char* n : kNames) {
      const json& p = golden()["problem"][n];
      params.push_back(from_list(p["init"], p["shape"], dtype).requires_grad_(true));
      a.push_back(from_list(p["a"], p["shape"], dtype));
      c.push_back(from_list(p["c"], p["shape"], dtype));
    }
  }
  // g = a * (p - c) + 0.1 * p^3 in the parameter's dtype, in the generator's operation order;
  // z (index 2) never gets a gradient.
  void set_grads() {
    NoGradGuard g;
    for (int k = 0; k < 2; ++k) {
      const Tensor& p = params[k];
      params[k].mutable_grad() = a[k] * (p - c[k]) + p * 0.1 * p * p;
    }
  }
};

// ── options from the golden's Python kwargs ─────────────────────────────
template <class T>
void maybe(optim::Setting<T>& field, const json& kw, const char* key) {
  for (const auto& item : kw["v"]) {
    if (item[0]["v"] != key) continue;
    const json& v = item[1];
    if constexpr (std::is_same_v<T, optim::Betas>)
      field = optim::Betas{v["v"][0]["v"].get<double>(), v["v"][1]["v"].get<double>()};
    else
      field = v["v"].get<T>();
  }
}

optim::SGDOptions opts(const json& kw, optim::SGDOptions o) {
  maybe(o.lr, kw, "lr"), maybe(o.momentum, kw, "momentum"), maybe(o.dampening, kw, "dampening");
  maybe(o.weight_decay, kw, "weight_decay"), maybe(o.nesterov, kw, "nesterov");
  maybe(o.maximize, kw, "maximize");
  return o;
}
template <class O>  // Adam and AdamW share their fields
O adam_opts(const json& kw, O o) {
  maybe(o.lr, kw, "lr"), maybe(o.betas, kw, "betas"), maybe(o.eps, kw, "eps");
  maybe(o.weight_decay, kw, "weight_decay"), maybe(o.amsgrad, kw, "amsgrad");
  maybe(o.maximize, kw, "maximize");
  return o;
}
optim::AdamOptions opts(const json& kw, optim::AdamOptions o) { return adam_opts(kw, o); }
optim::AdamWOptions opts(const json& kw, optim::AdamWOptions o) { return adam_opts(kw, o); }
optim::RMSpropOptions opts(const json& kw, optim::RMSpropOptions o) {
  maybe(o.lr, kw, "lr"), maybe(o.alpha, kw, "alpha"), maybe(o.eps, kw, "eps");
  maybe(o.weight_decay, kw, "weight_decay"), maybe(o.momentum, kw, "momentum");
  maybe(o.centered, kw, "centered"), maybe(o.maximize, kw, "maximize");
  return o;
}
optim::AdagradOptions opts(const json& kw, optim::AdagradOptions o) {
  maybe(o.lr, kw, "lr"), maybe(o.lr_decay, kw, "lr_decay"), maybe(o.eps, kw, "eps");
  maybe(o.weight_decay, kw, "weight_decay");
  maybe(o.initial_accumulator_value, kw, "initial_accumulator_value");
  maybe(o.maximize, kw, "maximize");
  return o;
}
optim::AdamaxOptions opts(const json& kw, optim::AdamaxOptions o) {
  maybe(o.lr, kw, "lr"), maybe(o.betas, kw, "betas"), maybe(o.eps, kw, "eps");
  maybe(o.weight_decay, kw, "weight_decay"), maybe(o.maximize, kw, "maximize");
  return o;
}
optim::NAdamOptions opts(const json& kw, optim::NAdamOptions o) {
  maybe(o.lr, kw, "lr"), maybe(o.betas, kw, "betas"), maybe(o.eps, kw, "eps");
  maybe(o.weight_decay, kw, "weight_decay"), maybe(o.momentum_decay, kw, "momentum_decay");
  return o;
}
optim::RAdamOptions opts(const json& kw, optim::RAdamOptions o) {
  maybe(o.lr, kw, "lr"), maybe(o.betas, kw, "betas"), maybe(o.eps, kw, "eps");
  maybe(o.weight_decay, kw, "weight_decay");
  return o;
}

template <class Opt>
std::unique_ptr<optim::Optimizer> build(const json& c, const std::vector<Tensor>& ps) {
  using O = std::remove_cvref_t<decltype(std::declval<Opt>().defaults())>;
  return std::make_unique<Opt>(
      std::vector<typename Opt::Group>{{{ps[0]}, opts(c["groups"][0], O{})},
                                       {{ps[1], ps[2]}, opts(c["groups"][1], O{})}},
      opts(c["defaults"], O{}));
}

std::unique_ptr<optim::Optimizer> make(const json& c, const std::vector<Tensor>& ps) {
  const std::string n = c["optimizer"];
  if (n == "SGD") return build<optim::SGD>(c, ps);
  if (n == "Adam") return build<optim::Adam>(c, ps);
  if (n == "AdamW") return build<optim::AdamW>(c, ps);
  if (n == "RMSprop") return build<optim::RMSprop>(c, ps);
  if (n == "Adagrad") return build<optim::Adagrad>(c, ps);
  if (n == "Adamax") return build<optim::Adamax>(c, ps);
  if (n == "NAdam") return build<optim::NAdam>(c, ps);
  if (n == "RAdam") return build<optim::RAdam>(c, ps);
  throw std::runtime_error("unknown optimizer " + n);
}

double tolerance(const json& c) { return c["dtype"] == "float64" ? 1e-6 : 1e-5; }

// Max relative error, where elements smaller than a tenth of the tensor's largest are measured
// against that tenth: their error is rounding inherited at the tensor's scale (a value that
// crossed zero carries the absolute error of its neighbours, not a relative one).
double max_rel_error(const Tensor& t, const json& expected) {
  Tensor d = t.detach().to(kFloat64).contiguous();
  const double* x = d.data_ptr<double>();
  double scale = 1e-12;
  for (const json& e : expected) scale = std::max(scale, 0.1 * std::abs(e.get<double>()));
  double worst = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    const double e = expected[i].get<double>();
    worst = std::max(worst, std::abs(x[i] - e) / std::max(std::abs(e), scale));
  }
  return worst;
}

// Recursive comparison of a Value with the generator's typed encoding.
void expect_value(const Value& v, const json& e, double tol, const std::string& path) {
  const std::string t = e["t"];
  if (t == "None") {
    EXPECT_TRUE(v.is_none()) << path << " is " << v.kind_name();
  } else if (t == "bool") {
    ASSERT_TRUE(v.is_bool()) << path << " is " << v.kind_name();
    EXPECT_EQ(v.to_bool(), e["v"].get<bool>()) << path;
  } else if (t == "int") {
    ASSERT_TRUE(v.is_int()) << path << " is " << v.kind_name();
    EXPECT_EQ(v.to_int(), e["v"].get<int64_t>()) << path;
  } else if (t == "float") {
    ASSERT_TRUE(v.is_double()) << path << " is " << v.kind_name();
    EXPECT_DOUBLE_EQ(v.to_double(), e["v"].get<double>()) << path;
  } else if (t == "str") {
    ASSERT_TRUE(v.is_string()) << path << " is " << v.kind_name();
    EXPECT_EQ(v.to_string(), e["v"].get<std::string>()) << path;
  } else if (t == "tuple" || t == "list") {
    ASSERT_TRUE(t == "tuple" ? v.is_tuple() : v.is_list()) << path << " is " << v.kind_name();
    const std::vector<Value>& items = v.is_tuple() ? v.to_tuple().items : v.to_list();
    ASSERT_EQ(items.size(), e["v"].size()) << path;
    for (size_t i = 0; i < items.size(); ++i)
      expect_value(items[i], e["v"][i], tol, path + "[" + std::to_string(i) + "]");
  } else if (t == "dict") {
    ASSERT_TRUE(v.is_dict()) << path << " is " << v.kind_name();
    const Dict& d = v.to_dict();
    ASSERT_EQ(d.size(), e["v"].size()) << path;
    size_t i = 0;
    for (const auto& [k, x] : d) {
      const json& ek = e["v"][i++];
      std::ostringstream key;
      key << k;
      expect_value(k, ek[0], tol, path + "{key " + key.str() + "}");
      expect_value(x, ek[1], tol, path + "[" + key.str() + "]");
    }
  } else if (t == "tensor") {
    ASSERT_TRUE(v.is_tensor()) << path << " is " << v.kind_name();
    const Tensor& x = v.to_tensor();
    EXPECT_EQ(dtype_name(x.dtype()), e["dtype"].get<std::string>()) << path;
    EXPECT_EQ(std::vector<int64_t>(x.sizes().begin(), x.sizes().end()),
              e["shape"].get<std::vector<int64_t>>())
        << path;
    EXPECT_LE(max_rel_error(x, e["v"]), tol) << path;
  } else {
    FAIL() << "unknown encoding " << t;
  }
}

Dtype dtype_of(const json& c) { return c["dtype"] == "float64" ? kFloat64 : kFloat32; }

class OptimGolden : public ::testing::TestWithParam<int> {
 protected:
  const json& c() const { return golden()["cases"][GetParam()]; }
};

TEST_P(OptimGolden, TrajectoryMatchesPyTorch) {
  Problem pb(dtype_of(c()));
  auto opt = make(c(), pb.params);
  for (int s = 0; s < golden()["steps"].get<int>(); ++s) {
    pb.set_grads();
    opt->step();
    for (int k = 0; k < 3; ++k)
      ASSERT_LE(max_rel_error(pb.params[k], c()["trajectory"][s][kNames[k]]), tolerance(c()))
          << c()["name"] << " " << c()["dtype"] << " step " << s + 1 << " param " << kNames[k];
  }
  expect_value(opt->state_dict(), c()["state_dict"], 10 * tolerance(c()), "state_dict");
}

TEST_P(OptimGolden, LoadStateDictContinuesIdentically) {
  const Dtype dtype = dtype_of(c());
  Problem a(dtype);
  auto opt_a = make(c(), a.params);
  for (int s = 0; s < 15; ++s) a.set_grads(), opt_a->step();
  // A second optimizer on copies of the parameters, resumed from A's state dict.
  Problem b(dtype);
  for (int k = 0; k < 3; ++k) {
    NoGradGuard g;
    b.params[k].copy_(a.params[k]);
  }
  auto opt_b = make(c(), b.params);
  opt_b->load_state_dict(opt_a->state_dict());
  for (int s = 15; s < 30; ++s) {
    a.set_grads(), opt_a->step();
    b.set_grads(), opt_b->step();
    for (int k = 0; k < 3; ++k) {
      // NAdam's float32 mu_product is cast to the parameter's dtype by load_state_dict (as in
      // PyTorch), so a resumed float64 run differs from the uninterrupted one by that rounding.
      if (c()["optimizer"] == "NAdam" && dtype == kFloat64)
        ASSERT_TRUE(allclose(a.params[k], b.params[k], 1e-9, 1e-12)) << "step " << s + 1;
      else
        ASSERT_TRUE(a.params[k].equal(b.params[k])) << "step " << s + 1 << " param " << kNames[k];
      ASSERT_LE(max_rel_error(b.params[k], c()["trajectory"][s][kNames[k]]), tolerance(c()));
    }
  }
  // The resumed state dict is PyTorch's too (bar NAdam's mu_product, now float64 as above).
  if (!(c()["optimizer"] == "NAdam" && dtype == kFloat64))
    expect_value(opt_b->state_dict(), c()["state_dict"], 10 * tolerance(c()), "resumed");
}

std::string case_name(const ::testing::TestParamInfo<int>& info) {
  const json& c = golden()["cases"][info.param];
  return c["name"].get<std::string>() + "_" + c["dtype"].get<std::string>();
}

INSTANTIATE_TEST_SUITE_P(PyTorch, OptimGolden,
                         ::testing::Range(0, int(golden()["cases"].size())), case_name);

// ── base behaviours ─────────────────────────────────────────────────────
TEST(Optimizer, GroupsOverrideDefaultsAsApiShows) {
  Tensor w = randn({3, 2}).requires_grad_(), b = zeros({2}).requires_grad_();
  std::vector<Tensor> w_params{w}, b_params{b};
  optim::SGD opt({{w_params, {.lr = 0.1}}, {b_params, {.lr = 0.05}}}, {.momentum = 0.9});
  ASSERT_EQ(opt.param_groups().size(), 2u);
  EXPECT_DOUBLE_EQ(opt.param_groups()[0].lr(), 0.1);
  EXPECT_DOUBLE_EQ(opt.param_groups()[1].lr(), 0.05);
  EXPECT_DOUBLE_EQ(opt.param_groups()[1].get("momentum"), 0.9);
  opt.param_groups()[1].set_lr(0.5);
  EXPECT_DOUBLE_EQ(opt.param_groups()[1].lr(), 0.5);
  // The spellings of API.md compile and resolve.
  optim::SGD sgd(w_params, {.lr = 0.1, .momentum = 0.9, .weight_decay = 1e-4, .nesterov = true});
  EXPECT_TRUE(sgd.param_groups()[0].get_bool("nesterov"));
  optim::Adam adam(w_params, {.lr = 1e-3, .betas = {0.9, 0.999}, .eps = 1e-8, .weight_decay = 0,
                              .amsgrad = true});
  EXPECT_EQ(adam.param_groups()[0].get_betas(), (optim::Betas{0.9, 0.999}));
  optim::AdamW adamw({{w_params, {.lr = 1e-5}}, {b_params, {.lr = 1e-3}}}, {.weight_decay = 0.01});
  EXPECT_DOUBLE_EQ(adamw.param_groups()[0].get("weight_decay"), 0.01);
  EXPECT_DOUBLE_EQ(adamw.param_groups()[1].lr(), 1e-3);
  // add_param_group: unset options come from the defaults.
  Tensor extra = ones({4}).requires_grad_();
  adamw.add_param_group({{extra}, {.eps = 1e-6}});
  EXPECT_DOUBLE_EQ(adamw.param_groups()[2].lr(), 1e-3);  // PyTorch's default: not in defaults
  EXPECT_DOUBLE_EQ(adamw.param_groups()[2].get("eps"), 1e-6);
  EXPECT_DOUBLE_EQ(adamw.param_groups()[2].get("weight_decay"), 0.01);
}

TEST(Optimizer, ZeroGrad) {
  Tensor w = ones({3}).requires_grad_();
  optim::SGD opt({w}, {.lr = 0.1});
  w.mutable_grad() = full({3}, 2.0);
  opt.zero_grad({.set_to_none = false});
  ASSERT_TRUE(w.grad().defined());
  EXPECT_EQ(w.grad().sum().item<double>(), 0.0);
  opt.zero_grad();  // set_to_none defaults to true
  EXPECT_FALSE(w.grad().defined());
  opt.step();  // no grad: skipped, no state
  EXPECT_TRUE(w.equal(ones({3})));
  EXPECT_TRUE(opt.state_dict()["state"].to_dict().empty());
}

TEST(Optimizer, StepWithClosureReturnsLossAndUsesAutograd) {
  Tensor w = tensor({1.0, -2.0}).requires_grad_();
  optim::SGD opt({w}, {.lr = 0.25});
  int calls = 0;
  Tensor loss = opt.step([&] {
    ++calls;
    opt.zero_grad();
    Tensor l = (w * w).sum();  // grad 2w
    l.backward();
    return l;
  });
  EXPECT_EQ(calls, 1);
  EXPECT_DOUBLE_EQ(loss.item<double>(), 5.0);
  EXPECT_TRUE(allclose(w, tensor({0.5, -1.0})));
  EXPECT_FALSE(opt.step().defined());  // no closure: no loss
}

TEST(Optimizer, Errors) {
  Tensor w = ones({2}).requires_grad_();
  auto expect_error = [](auto f, const std::string& part) { EXPECT_ERROR(f(), part); };
  expect_error([&] { optim::SGD opt({w}); }, "[optim.SGD] parameter group didn't specify");
  expect_error([&] { optim::SGD opt({w * 2}, {.lr = 0.1}); }, "non-leaf");
  expect_error([&] { optim::SGD opt({{{w}, {}}, {{w}, {}}}, {.lr = 0.1}); },
               "more than one parameter group");
  expect_error([&] { optim::Adam opt({w}, {.betas = {1.5, 0.9}}); }, "Invalid beta");
  expect_error([&] { optim::SGD opt({w}, {.lr = 0.1, .nesterov = true}); }, "Nesterov");
  optim::Adam one({w}), two({{{w}, {}}, {{ones({1}).requires_grad_()}, {}}});
  expect_error([&] { two.load_state_dict(one.state_dict()); }, "different number of parameter groups");
  Tensor h = ones({2}, {.dtype = kFloat16}).requires_grad_();
  optim::Adam half({h});
  h.mutable_grad() = ones({2}, {.dtype = kFloat16});
  expect_error([&] { half.step(); }, "[optim.Adam] parameters must be float32 or float64");
}

// LBFGS against torch.optim.LBFGS 1.13 (golden/lbfgs.json, written by golden/gen_lbfgs.py): three
// step(closure) calls per configuration, with and without the strong-Wolfe line search.
TEST(LBFGS, MatchesPyTorch) {
  static const json data = test::load_golden("lbfgs.json");
  const json& problem = data["problem"];
  const Tensor x = test::golden_tensor(problem["x"]),
               target = test::golden_tensor(problem["target"]);
  for (const json& c : data["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    Tensor w = test::golden_tensor(problem["w"]).requires_grad_();
    Tensor b = test::golden_tensor(problem["b"]).requires_grad_();
    optim::LBFGSOptions o;
    const json& kw = c["options"];
    if (kw.contains("lr")) o.lr = kw["lr"].get<double>();
    if (kw.contains("max_iter")) o.max_iter = kw["max_iter"].get<int64_t>();
    if (kw.contains("max_eval")) o.max_eval = kw["max_eval"].get<int64_t>();
    if (kw.contains("history_size")) o.history_size = kw["history_size"].get<int64_t>();
    if (kw.contains("tolerance_grad")) o.tolerance_grad = kw["tolerance_grad"].get<double>();
    if (kw.contains("tolerance_change")) o.tolerance_change = kw["tolerance_change"].get<double>();
    if (kw.contains("line_search_fn")) o.line_search_fn = kw["line_search_fn"].get<std::string>();
    optim::LBFGS opt({w, b}, o);
    auto closure = [&] {
      opt.zero_grad();
      Tensor loss = (tanh(x.matmul(w) + b) - target).pow(2).sum() + 0.1 * w.pow(4).sum();
      loss.backward();
      return loss;
    };
    for (int step = 0; step < 3; ++step)
      EXPECT_NEAR(opt.step(closure).item<double>(), c["losses"][step].get<double>(),
                  1e-9 * std::max(1.0, c["losses"][step].get<double>()))
          << "step " << step;
    EXPECT_TRUE(allclose(w, test::golden_tensor(c["w"]), 1e-9, 1e-9));
    EXPECT_TRUE(allclose(b, test::golden_tensor(c["b"]), 1e-9, 1e-9));
    const Dict& st = opt.state(w);
    EXPECT_EQ(st.at(Value("func_evals")).to_int(), c["func_evals"].get<int64_t>());
    EXPECT_EQ(st.at(Value("n_iter")).to_int(), c["n_iter"].get<int64_t>());
    EXPECT_EQ(st.at(Value("old_dirs")).to_list().size(), c["history"].get<size_t>());
    std::vector<std::string> keys;
    for (const auto& [k, v] : st) keys.push_back(k.to_string());
    EXPECT_EQ(keys, c["state_keys"].get<std::vector<std::string>>());
  }
}

TEST(LBFGS, Errors) {
  Tensor w = ones({2}).requires_grad_(), b = ones({1}).requires_grad_();
  EXPECT_ERROR((optim::LBFGS({{{w}, {}}, {{b}, {}}})), "doesn't support per-parameter options");
  EXPECT_ERROR((optim::LBFGS({w}, {.line_search_fn = "backtracking"})),
               "only 'strong_wolfe' is supported");
  optim::LBFGS opt({w});
  EXPECT_ERROR(opt.step(), "step() needs a closure");
}

}  // namespace
