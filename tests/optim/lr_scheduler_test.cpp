// LR schedulers against PyTorch 1.13: golden/lr_scheduler.json (written by
// golden/gen_lr_scheduler.py) holds each scheduler's LR sequence (and momentum / beta1 where a
// scheduler cycles it) over 300 steps on two parameter groups; every value must agree to 1e-12.
// Also: ReduceLROnPlateau on a scripted metric, CosineAnnealingWarmRestarts with fractional
// epochs, and state_dict round trips that continue identically.
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
  static const json j = test::load_golden("lr_scheduler.json");
  return j;
}


// SGD (momentum 0.9) or Adam over two groups with lr 0.1 and 0.05, as the generator builds.
struct Rig {
  std::vector<Tensor> a{zeros({2}).requires_grad_()}, b{zeros({3}).requires_grad_()};
  std::unique_ptr<optim::Optimizer> opt;
  std::vector<std::unique_ptr<optim::LRScheduler>> children;  // owned by the composites' cases
  std::unique_ptr<optim::LRScheduler> sched;

  explicit Rig(const std::string& kind) {
    if (kind == "adam")
      opt = std::make_unique<optim::Adam>(
          std::vector<optim::Adam::Group>{{a, {.lr = 0.1}}, {b, {.lr = 0.05}}});
    else
      opt = std::make_unique<optim::SGD>(
          std::vector<optim::SGD::Group>{{a, {.lr = 0.1}}, {b, {.lr = 0.05}}},
          optim::SGDOptions{.lr = 0.1, .momentum = 0.9});
  }
  template <class S, class... A>
  optim::LRScheduler& child(A&&... args) {
    children.push_back(std::make_unique<S>(*opt, std::forward<A>(args)...));
    return *children.back();
  }
  std::vector<double> momentum() const {
    std::vector<double> out;
    for (const auto& g : opt->param_groups())
      out.push_back(g.has_option("betas") ? g.get_betas().first : g.get("momentum"));
    return out;
  }
};

std::unique_ptr<optim::LRScheduler> make(const std::string& name, Rig& s) {
  using namespace optim;
  Optimizer& o = *s.opt;
  if (name == "step") return std::make_unique<StepLR>(o, StepLROptions{.step_size = 30, .gamma = 0.1});
  if (name == "multistep")
    return std::make_unique<MultiStepLR>(o, MultiStepLROptions{.milestones = {30, 80, 80, 200}, .gamma = 0.5});
  if (name == "constant")
    return std::make_unique<ConstantLR>(o, ConstantLROptions{.factor = 0.5, .total_iters = 40});
  if (name == "linear")
    return std::make_unique<LinearLR>(
        o, LinearLROptions{.start_factor = 0.1, .end_factor = 1.0, .total_iters = 50});
  if (name == "linear_down")
    return std::make_unique<LinearLR>(
        o, LinearLROptions{.start_factor = 1.0, .end_factor = 0.2, .total_iters = 120});
  if (name == "exponential") return std::make_unique<ExponentialLR>(o, ExponentialLROptions{.gamma = 0.99});
  if (name == "polynomial")
    return std::make_unique<PolynomialLR>(o, PolynomialLROptions{.total_iters = 150, .power = 2.0});
  if (name == "cosine")
    return std::make_unique<CosineAnnealingLR>(o, CosineAnnealingLROptions{.T_max = 100, .eta_min = 1e-4});
  if (name == "warm_restarts")
    return std::make_unique<CosineAnnealingWarmRestarts>(
        o, CosineAnnealingWarmRestartsOptions{.T_0 = 10, .T_mult = 2, .eta_min = 1e-5});
  if (name == "warm_restarts_mult1")
    return std::make_unique<CosineAnnealingWarmRestarts>(o, CosineAnnealingWarmRestartsOptions{.T_0 = 25});
  if (name == "cyclic_triangular2")
    return std::make_unique<CyclicLR>(o, CyclicLROptions{.base_lr = 0.01, .max_lr = {0.1, 0.2},
                                                         .step_size_up = 20, .mode = "triangular2"});
  if (name == "cyclic_exp_range")
    return std::make_unique<CyclicLR>(
        o, CyclicLROptions{.base_lr = 0.01, .max_lr = 0.1, .step_size_up = 20, .step_size_down = 30,
                           .mode = "exp_range", .gamma = 0.995});
  if (name == "one_cycle") return std::make_unique<OneCycleLR>(o, OneCycleLROptions{.max_lr = 0.1, .total_steps = 300});
  if (name == "one_cycle_adam_linear_3phase")
    return std::make_unique<OneCycleLR>(
        o, OneCycleLROptions{.max_lr = {0.1, 0.01}, .total_steps = 300, .anneal_strategy = "linear",
                             .three_phase = true});
  if (name == "lambda")
    return std::make_unique<LambdaLR>(
        o, std::vector<LambdaLR::Lambda>{[](int64_t e) { return std::pow(0.95, double(e)); },
                                         [](int64_t e) { return 1.0 / double(1 + e); }});
  if (name == "multiplicative") return std::make_unique<MultiplicativeLR>(o, [](int64_t) { return 0.99; });
  if (name == "warmup_cosine")
    return std::make_unique<WarmupCosineLR>(o, WarmupCosineLROptions{.warmup_steps = 30, .total_steps = 300});
  if (name == "warmup_linear")
    return std::make_unique<WarmupLinearLR>(o, WarmupLinearLROptions{.warmup_steps = 30, .total_steps = 300});
  if (name == "sequential") {
    auto& warm = s.child<LinearLR>(LinearLROptions{.start_factor = 0.1, .total_iters = 50});
    auto& cosine = s.child<CosineAnnealingLR>(CosineAnnealingLROptions{.T_max = 250});
    return std::make_unique<SequentialLR>(o, SequentialLROptions{.schedulers = {warm, cosine}, .milestones = {50}});
  }
  if (name == "sequential_3") {
    auto& c = s.child<ConstantLR>(ConstantLROptions{.factor = 0.5, .total_iters = 20});
    auto& e = s.child<ExponentialLR>(ExponentialLROptions{.gamma = 0.98});
    auto& st = s.child<StepLR>(StepLROptions{.step_size = 10, .gamma = 0.5});
    return std::make_unique<SequentialLR>(o, SequentialLROptions{.schedulers = {c, e, st}, .milestones = {20, 100}});
  }
  if (name == "chained") {
    auto& c = s.child<ConstantLR>(ConstantLROptions{.factor = 0.1, .total_iters = 20});
    auto& e = s.child<ExponentialLR>(ExponentialLROptions{.gamma = 0.99});
    return std::make_unique<ChainedScheduler>(std::vector<SchedulerRef>{c, e});
  }
  throw std::runtime_error("unknown case " + name);
}

void expect_close(const std::vector<double>& got, const json& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    const double w = want[i].get<double>();
    EXPECT_LE(std::abs(got[i] - w), 1e-12 * std::max(1.0, std::abs(w)))
        << what << " group " << i << ": got " << got[i] << " want " << w;
  }
}

class SchedulerGolden : public ::testing::TestWithParam<int> {
 protected:
  const json& c() const { return golden()["cases"][GetParam()]; }
};

TEST_P(SchedulerGolden, LrSequenceMatchesPyTorch) {
  const std::string name = c()["name"];
  Rig s(c()["optimizer"]);
  s.sched = make(name, s);
  const json& lrs = c()["lrs"];
  for (size_t t = 0; t < lrs.size(); ++t) {
    if (t > 0) s.opt->step(), s.sched->step();
    expect_close(s.sched->get_last_lr(), lrs[t], name + " step " + std::to_string(t));
    expect_close(s.momentum(), c()["momentum"][t], name + " momentum step " + std::to_string(t));
    if (HasFailure()) return;
  }
}

TEST_P(SchedulerGolden, StateDictResumesIdentically) {
  const std::string name = c()["name"];
  Rig a(c()["optimizer"]);
  a.sched = make(name, a);
  for (int t = 0; t < 150; ++t) a.opt->step(), a.sched->step();
  Value opt_state = a.opt->state_dict(), sched_state = a.sched->state_dict();
  // A fresh optimizer and scheduler, loaded from the saved state, continue as the original.
  Rig b(c()["optimizer"]);
  b.sched = make(name, b);
  b.opt->load_state_dict(opt_state);
  b.sched->load_state_dict(sched_state);
  for (size_t t = 151; t < c()["lrs"].size(); ++t) {
    a.opt->step(), a.sched->step();
    b.opt->step(), b.sched->step();
    ASSERT_EQ(a.sched->get_last_lr(), b.sched->get_last_lr()) << name << " step " << t;
    expect_close(b.sched->get_last_lr(), c()["lrs"][t], name + " resumed step " + std::to_string(t));
    if (HasFailure()) return;
  }
}

std::string case_name(const ::testing::TestParamInfo<int>& info) {
  return golden()["cases"][info.param]["name"].get<std::string>();
}

INSTANTIATE_TEST_SUITE_P(PyTorch, SchedulerGolden,
                         ::testing::Range(0, int(golden()["cases"].size())), case_name);

TEST(CosineAnnealingWarmRestarts, FractionalEpochs) {
  const json& g = golden()["fractional"];
  Rig s("sgd");
  optim::CosineAnnealingWarmRestarts sched(*s.opt, {.T_0 = 5, .T_mult = 2, .eta_min = 1e-4});
  expect_close(sched.get_last_lr(), g["lrs"][0], "initial");
  for (size_t i = 0; i < g["epochs"].size(); ++i) {
    sched.step(g["epochs"][i].get<double>());
    expect_close(sched.get_last_lr(), g["lrs"][i + 1], "epoch " + g["epochs"][i].dump());
  }
}

TEST(ReduceLROnPlateau, ScriptedMetricMatchesPyTorch) {
  for (const json& g : golden()["plateau"]) {
    const std::string name = g["name"];
    Rig s("sgd");
    optim::ReduceLROnPlateauOptions o;
    if (name == "plateau_min_rel")
      o = {.mode = "min", .factor = 0.5, .patience = 5, .threshold = 1e-3, .cooldown = 3,
           .min_lr = {1e-3, 5e-4}};
    else if (name == "plateau_max_abs")
      o = {.mode = "max", .factor = 0.3, .patience = 8, .threshold = 1e-4, .threshold_mode = "abs",
           .cooldown = 0, .min_lr = 1e-4};
    else
      o = {.mode = "min", .factor = 0.9, .patience = 2, .min_lr = 0.049, .eps = 1e-3};
    optim::ReduceLROnPlateau plateau(*s.opt, o);
    for (size_t i = 0; i < g["metrics"].size(); ++i) {
      plateau.step(g["metrics"][i].get<double>());
      expect_close(plateau.get_last_lr(), g["lrs"][i], name + " step " + std::to_string(i));
    }
    // Round trip: a second scheduler loaded mid-way continues identically.
    Rig s2("sgd");
    optim::ReduceLROnPlateau a(*s2.opt, o);
    for (int i = 0; i < 100; ++i) a.step(g["metrics"][i].get<double>());
    Rig s3("sgd");
    s3.opt->load_state_dict(s2.opt->state_dict());
    optim::ReduceLROnPlateau b(*s3.opt, o);
    b.load_state_dict(a.state_dict());
    for (size_t i = 100; i < g["metrics"].size(); ++i) {
      b.step(g["metrics"][i].get<double>());
      expect_close(b.get_last_lr(), g["lrs"][i], name + " resumed step " + std::to_string(i));
    }
  }
}

TEST(LRScheduler, ApiSpellingsAndInitialLr) {
  Tensor w = zeros({2}).requires_grad_();
  optim::SGD opt({w}, {.lr = 0.1, .momentum = 0.9});
  optim::StepLR(opt, {.step_size = 30, .gamma = 0.1});
  EXPECT_DOUBLE_EQ(opt.param_groups()[0].get("initial_lr"), 0.1);
  optim::CosineAnnealingLR(opt, {.T_max = 100, .eta_min = 1e-6});
  optim::CosineAnnealingWarmRestarts(opt, {.T_0 = 50, .T_mult = 2, .eta_min = 1e-6});
  optim::ReduceLROnPlateau plateau(opt, {.mode = "min", .factor = 0.5, .patience = 10});
  plateau.step(1.0);
  optim::LambdaLR sched(opt, [](int64_t step) { return std::min(1.0, step / 1000.0); });
  EXPECT_DOUBLE_EQ(opt.param_groups()[0].lr(), 0.0);
  sched.step();
  EXPECT_DOUBLE_EQ(opt.param_groups()[0].lr(), 0.1 / 1000);
  optim::MultiStepLR s1(opt, {.milestones = {30, 80}, .gamma = 0.1});
  optim::ExponentialLR s2(opt, {.gamma = 0.9});
  optim::LinearLR warm(opt, {.start_factor = 0.1, .end_factor = 1.0, .total_iters = 10});
  optim::OneCycleLR s4(opt, {.max_lr = 0.1, .total_steps = 300});
  optim::CosineAnnealingLR cosine(opt, {.T_max = 100});
  optim::SequentialLR s5(opt, {.schedulers = {warm, cosine}, .milestones = {50}});
  EXPECT_EQ(s1.get_last_lr().size(), 1u);
  // Resuming needs initial_lr in every group.
  Tensor v = zeros({2}).requires_grad_();
  optim::SGD fresh({v}, {.lr = 0.1});
  EXPECT_THROW(optim::StepLR(fresh, {.step_size = 3, .last_epoch = 5}), Error);
  // OneCycleLR refuses to step past total_steps.
  optim::SGD o2({v}, {.lr = 0.1, .momentum = 0.9});
  optim::OneCycleLR short_cycle(o2, {.max_lr = 0.1, .total_steps = 3});
  for (int i = 0; i < 3; ++i) short_cycle.step();
  EXPECT_THROW(short_cycle.step(), Error);
}

}  // namespace
