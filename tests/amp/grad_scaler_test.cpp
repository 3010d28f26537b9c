// amp::GradScaler against PyTorch 1.13's GradScaler run step by step (tests/golden/
// grad_scaler.json; see Note [Running 1.13's CUDA-only GradScaler on CPU] in its generator):
// the scale's growth after growth_interval clean steps, the backoff and skipped step on an
// injected inf or NaN, unscaled gradients, parameters for every optimizer, clip_grad_norm_
// after unscale_, the state_dict, and PyTorch's errors for misuse. And the kernel-table dispatch of
// unscale_: each device type's gradients reach that backend's amp entry (a fake CUDA device here;
// the emulated CUDA kernel behind it runs in cuda_emulation_test), and a device without the entry
// is refused by name.
#include "ember/amp/grad_scaler.h"

#include <ember/autograd.h>
#include <ember/linalg.h>
#include <ember/nn/utils.h>
#include <ember/optim.h>

#include <cmath>
#include <functional>
#include <map>
#include <memory>

#include "backend/backend.h"
#include "backend/cpu/amp.h"
#include "backend/fake_device.h"
#include "test_support.h"

namespace ember::amp {
namespace {

const nlohmann::json& golden() {
  static const nlohmann::json g = test::load_golden("grad_scaler.json");
  return g;
}

struct Problem {
  Tensor w, b, x, y;
  Problem() {
    std::vector<double> w0, b0, x0, y0;
    for (int i = 0; i < 12; ++i) w0.push_back(0.3 * std::sin(i + 1));
    for (int i = 0; i < 3; ++i) b0.push_back(0.2 * std::cos(i + 2));
    for (int i = 0; i < 8; ++i) x0.push_back(std::sin(0.7 * i));
    for (int i = 0; i < 6; ++i) y0.push_back(std::cos(0.3 * i));
    w = from_vector(w0, std::vector<int64_t>{3, 4}).to(kFloat32).requires_grad_();
    b = from_vector(b0, std::vector<int64_t>{3}).to(kFloat32).requires_grad_();
    x = from_vector(x0, std::vector<int64_t>{2, 4}).to(kFloat32);
    y = from_vector(y0, std::vector<int64_t>{2, 3}).to(kFloat32);
  }
  Tensor loss() const { return (matmul(x, w.t()) + b - y).pow(2).mean(); }
  std::vector<Tensor> params() const { return {w, b}; }
};

using MakeOptimizer = std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)>;

const std::map<std::string, MakeOptimizer>& optimizers() {
  static const std::map<std::string, MakeOptimizer> m = {
      {"sgd", [](auto p) { return std::make_unique<optim::SGD>(p, optim::SGDOptions{.lr = 0.1, .momentum = 0.9}); }},
      {"adam", [](auto p) { return std::make_unique<optim::Adam>(p, optim::AdamOptions{.lr = 0.01}); }},
      {"adamw", [](auto p) { return std::make_unique<optim::AdamW>(p, optim::AdamWOptions{.lr = 0.01}); }},
      {"adamax", [](auto p) { return std::make_unique<optim::Adamax>(p, optim::AdamaxOptions{.lr = 0.01}); }},
      {"nadam", [](auto p) { return std::make_unique<optim::NAdam>(p, optim::NAdamOptions{.lr = 0.01}); }},
      {"radam", [](auto p) { return std::make_unique<optim::RAdam>(p, optim::RAdamOptions{.lr = 0.01}); }},
      {"rmsprop", [](auto p) { return std::make_unique<optim::RMSprop>(p, optim::RMSpropOptions{.lr = 0.01}); }},
      {"adagrad", [](auto p) { return std::make_unique<optim::Adagrad>(p, optim::AdagradOptions{.lr = 0.1}); }},
  };
  return m;
}

GradScalerOptions golden_options() {
  const auto& o = golden()["options"];
  return {.init_scale = o["init_scale"], .growth_factor = o["growth_factor"],
          .backoff_factor = o["backoff_factor"], .growth_interval = o["growth_interval"]};
}

// Element by element; NaN matches NaN and inf matches inf of the same sign.
void expect_values(const Tensor& got, const nlohmann::json& want, const std::string& what) {
  const Tensor g = got.detach().reshape({-1}).to(kFloat64).contiguous();
  ASSERT_EQ(g.numel(), int64_t(want.size())) << what;
  const double* p = g.data_ptr<double>();
  for (size_t i = 0; i < want.size(); ++i) {
    const double w = test::golden_number(want[i]);
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(p[i])) << what << "[" << i << "] = " << p[i];
    } else if (std::isinf(w)) {
      EXPECT_EQ(p[i], w) << what << "[" << i << "]";
    } else {
      EXPECT_NEAR(p[i], w, 1e-6 + 1e-5 * std::abs(w)) << what << "[" << i << "]";
    }
  }
}

void replay(const std::string& name, const std::string& optimizer, bool clip) {
  const auto& traj = golden()["trajectories"][name];
  Problem pr;
  auto opt = optimizers().at(optimizer)(pr.params());
  GradScaler scaler(golden_options());
  const auto& inject = golden()["inject"];
  int step = 0;
  for (const auto& row : traj["steps"]) {
    SCOPED_TRACE(name + " step " + std::to_string(step));
    opt->zero_grad();
    const Tensor loss = pr.loss();
    EXPECT_NEAR(loss.item<double>(), row["loss"].get<double>(), 1e-6);
    EXPECT_EQ(scaler.get_scale(), row["scale_before"].get<double>());
    const Tensor scaled = scaler.scale(loss);
    EXPECT_EQ(scaled.sizes(), row["scaled_shape"].get<std::vector<int64_t>>());
    EXPECT_NEAR(scaled.item<double>(), row["scaled_loss"].get<double>(),
                1e-5 * std::abs(row["scaled_loss"].get<double>()));
    scaled.backward();
    if (inject.contains(std::to_string(step))) {
      const auto& inj = inject[std::to_string(step)];
      const Tensor& p = inj[0] == "w" ? pr.w : pr.b;
      NoGradGuard no_grad;
      Tensor g = p.grad();
      if (inj[1].size() == 2)
        g.select(0, inj[1][0]).select(0, inj[1][1]).fill_(test::golden_number(inj[2]));
      else
        g.select(0, inj[1][0]).fill_(test::golden_number(inj[2]));
    }
    if (clip) {
      scaler.unscale_(*opt);
      const double norm = nn::utils::clip_grad_norm_(pr.params(), 0.5);
      const double want = test::golden_number(row["clip_norm"]);
      if (std::isfinite(want))
        EXPECT_NEAR(norm, want, 1e-5 * want);
      else
        EXPECT_FALSE(std::isfinite(norm));
    }
    EXPECT_EQ(scaler.step(*opt), row["stepped"].get<bool>());
    expect_values(pr.w.grad(), row["w_grad"], "w.grad");
    expect_values(pr.b.grad(), row["b_grad"], "b.grad");
    scaler.update();
    EXPECT_EQ(scaler.get_scale(), row["scale_after"].get<double>());
    EXPECT_EQ(scaler.growth_tracker(), row["tracker_after"].get<int64_t>());
    expect_values(pr.w, row["w"], "w");
    expect_values(pr.b, row["b"], "b");
    ++step;
  }
  const Dict sd = scaler.state_dict();
  const auto& want = traj["state_dict"];
  EXPECT_EQ(sd.at(Value("scale")).to_double(), want["scale"].get<double>());
  EXPECT_EQ(sd.at(Value("_growth_tracker")).to_int(), want["_growth_tracker"].get<int64_t>());
}

TEST(GradScaler, GoldenTrajectoryEveryOptimizer) {
  for (const auto& [name, make] : optimizers()) replay(name, name, /*clip=*/false);
  // Every optimizer ember has is replayed: the golden file has no other trajectory.
  EXPECT_EQ(golden()["trajectories"].size(), optimizers().size() + 1);
}

TEST(GradScaler, ClipGradNormAfterUnscale) { replay("sgd_clip", "sgd", /*clip=*/true); }

TEST(GradScaler, DefaultsAndStateDictKeys) {
  GradScaler scaler;
  const Dict sd = scaler.state_dict();
  const auto want = test::load_golden<nlohmann::ordered_json>("grad_scaler.json")["defaults_state_dict"];
  ASSERT_EQ(sd.size(), want.size());
  size_t i = 0;
  for (const auto& [key, value] : want.items()) {  // PyTorch's key order
    const auto& [k, v] = *(sd.begin() + i++);
    EXPECT_EQ(k.to_string(), key);
    if (value.is_number_integer()) {
      EXPECT_TRUE(v.is_int()) << key;
      EXPECT_EQ(v.to_int(), value.get<int64_t>()) << key;
    } else {
      EXPECT_TRUE(v.is_double()) << key;
      EXPECT_EQ(v.to_double(), value.get<double>()) << key;
    }
  }
  EXPECT_TRUE(scaler.is_enabled());
}

// The golden file uses growth_interval 3; the default 2000 is checked here: 1999 clean steps
// keep 65536, the 2000th doubles it.
TEST(GradScaler, GrowsAfterDefaultGrowthInterval) {
  Tensor w = ones({2}).requires_grad_();
  optim::SGD opt({w}, {.lr = 0.0});
  GradScaler scaler;
  for (int i = 1; i <= 2000; ++i) {
    opt.zero_grad();
    scaler.scale(w.sum()).backward();
    EXPECT_TRUE(scaler.step(opt));
    scaler.update();
    if (i == 1999) {
      EXPECT_EQ(scaler.get_scale(), 65536.0);
    }
  }
  EXPECT_EQ(scaler.get_scale(), 131072.0);
  EXPECT_EQ(scaler.growth_tracker(), 0);
}

TEST(GradScaler, GrowthStopsBelowFloatInfinity) {
  const auto& g = golden()["growth_capped"];
  Tensor w = ones({2}).requires_grad_();
  optim::SGD opt({w}, {.lr = 0.0});
  GradScaler scaler({.init_scale = g["init_scale"], .growth_interval = 1});
  scaler.scale(w.sum() * 0).backward();
  scaler.step(opt);
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), g["scale_after"].get<double>());
}

TEST(GradScaler, ErrorsArePyTorchs) {
  const auto& e = golden()["errors"];
  Problem pr;
  optim::SGD opt(pr.params(), {.lr = 0.1});
  GradScaler scaler(golden_options());
  EXPECT_ERROR(scaler.unscale_(opt), e["unscale_before_scale"].get<std::string>());
  EXPECT_ERROR(scaler.update(), e["update_before_scale"].get<std::string>());
  scaler.scale(pr.loss()).backward();
  EXPECT_ERROR(scaler.update(), e["update_without_inf_checks"].get<std::string>());
  scaler.unscale_(opt);
  EXPECT_ERROR(scaler.unscale_(opt), e["unscale_twice"].get<std::string>());
  EXPECT_ERROR(scaler.unscale_(opt), "[GradScaler.unscale_]");
  scaler.step(opt);
  EXPECT_ERROR(scaler.unscale_(opt), e["unscale_after_step"].get<std::string>());
  EXPECT_ERROR(scaler.step(opt), e["step_twice"].get<std::string>());
  scaler.update();
  optim::SGD no_grads({zeros({2}).requires_grad_()}, {.lr = 0.1});
  EXPECT_ERROR(scaler.step(no_grads), e["step_without_grads"].get<std::string>());
  GradScaler fresh;
  EXPECT_ERROR(fresh.load_state_dict(Dict()), e["load_empty"].get<std::string>());
  EXPECT_ERROR(GradScaler({.growth_factor = 1.0}), e["growth_factor"].get<std::string>());
  EXPECT_ERROR(GradScaler({.backoff_factor = 1.0}), e["backoff_factor"].get<std::string>());
}

// Two optimizers: each is unscaled once; an inf in one skips only its step, and update()
// backs off because any optimizer saw one.
TEST(GradScaler, PerOptimizerState) {
  Tensor a = ones({2}).requires_grad_(), b = ones({2}).requires_grad_();
  optim::SGD oa({a}, {.lr = 0.5}), ob({b}, {.lr = 0.5});
  GradScaler scaler;
  scaler.scale((a + b).sum()).backward();
  { NoGradGuard g; Tensor(b.grad()).fill_(std::nan("")); }
  EXPECT_TRUE(scaler.step(oa));
  EXPECT_FALSE(scaler.step(ob));
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 32768.0);
  EXPECT_TRUE(allclose(a.detach(), full({2}, 0.5)));
  EXPECT_TRUE(allclose(b.detach(), ones({2})));
}

TEST(GradScaler, StateDictRoundTripAndManualScale) {
  GradScaler a(golden_options());
  Tensor w = ones({2}).requires_grad_();
  optim::SGD opt({w}, {.lr = 0.0});
  for (int i = 0; i < 2; ++i) {
    a.scale(w.sum()).backward();
    a.step(opt);
    a.update();
  }
  GradScaler b;
  b.load_state_dict(a.state_dict());
  EXPECT_EQ(b.get_scale(), a.get_scale());
  EXPECT_EQ(b.growth_tracker(), 2);
  EXPECT_EQ(b.get_growth_interval(), 3);
  b.scale(w.sum());
  b.update(1024.0);
  EXPECT_EQ(b.get_scale(), 1024.0);
  EXPECT_EQ(b.growth_tracker(), 2);
}

TEST(GradScaler, DisabledIsTransparent) {
  GradScaler scaler({.enabled = false});
  Tensor w = ones({2}).requires_grad_();
  optim::SGD opt({w}, {.lr = 0.5});
  const Tensor loss = w.sum();
  EXPECT_TRUE(scaler.scale(loss).is_same(loss));
  loss.backward();
  scaler.unscale_(opt);  // no-op
  EXPECT_TRUE(scaler.step(opt));
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 1.0);
  EXPECT_TRUE(scaler.state_dict().empty());
  EXPECT_TRUE(allclose(w.detach(), full({2}, 0.5)));
}

TEST(GradScaler, Float16GradientsAreRefused) {
  Tensor w = ones({2}, {.dtype = kFloat16}).requires_grad_();
  optim::SGD opt({w}, {.lr = 0.1});
  GradScaler scaler;
  scaler.scale(w.sum()).backward();
  EXPECT_ERROR(scaler.unscale_(opt), "Attempting to unscale FP16 gradients.");
}

// The fused kernel: every element is unscaled in the same pass that finds the inf, for each
// floating dtype.
TEST(GradScalerKernel, UnscalesEverythingAndFindsNonFinite) {
  for (Dtype dt : {kFloat32, kFloat64, kBFloat16}) {
    Tensor a = full({100000}, 4.0, {.dtype = dt});
    Tensor b = full({4, 3}, 8.0, {.dtype = dt});
    EXPECT_FALSE(cpu::non_finite_check_and_unscale_(std::vector<Tensor>{a, b}, 0.25f));
    EXPECT_TRUE(allclose(a.to(kFloat64), ones({100000}, {.dtype = kFloat64})));
    EXPECT_TRUE(allclose(b.to(kFloat64), full({4, 3}, 2.0, {.dtype = kFloat64})));
    a.select(0, 77777).fill_(INFINITY);
    EXPECT_TRUE(cpu::non_finite_check_and_unscale_(std::vector<Tensor>{a, b}, 0.5f));
    EXPECT_EQ(b.select(0, 0).select(0, 0).item<double>(), 1.0);  // still unscaled after the inf
    EXPECT_EQ(a.select(0, 0).item<double>(), 0.5);
  }
}

// unscale_ reaches the CPU kernel through the CPU backend's table entry, so the golden replays
// above run it by dispatch.
TEST(GradScalerKernel, TheCpuBackendsAmpEntryIsTheFusedKernel) {
  EXPECT_EQ(backend::backend_for(kCPU)->amp.non_finite_check_and_unscale_,
            &cpu::non_finite_check_and_unscale_);
}

// The fake device's amp entry: logs how many tensors it was given and runs the CPU kernel over
// their (host) memory.
bool fake_unscale(std::span<const Tensor> tensors, float inv_scale) {
  test::FakeDevice::calls().push_back("unscale " + std::to_string(tensors.size()));
  std::vector<Tensor> host;
  for (const Tensor& t : tensors) host.push_back(test::FakeDevice::host_view(t));
  return cpu::non_finite_check_and_unscale_(host, inv_scale);
}

// One optimizer over a CPU parameter and two on a fake CUDA device: the device's gradients go to
// its backend's entry in one call, the CPU one to the CPU kernel, and either one's inf skips the
// step and backs the scale off.
TEST(GradScaler, EachDeviceTypesGradientsReachItsBackendsEntry) {
  using test::FakeDevice;
  FakeDevice fake;
  fake.table.amp.non_finite_check_and_unscale_ = &fake_unscale;
  Tensor c = zeros({2}).requires_grad_();
  Tensor d0 = FakeDevice::tensor<float>({0, 0}).requires_grad_();
  Tensor d1 = FakeDevice::tensor<float>({0}).requires_grad_();
  optim::SGD opt({c, d0, d1}, {.lr = 0.5});
  GradScaler scaler({.init_scale = 4.0});
  scaler.scale(ones({1}));  // starts the iteration (the scale lives on the host)
  c.mutable_grad() = full({2}, 8.0);
  d0.mutable_grad() = FakeDevice::tensor<float>({4, 12});
  d1.mutable_grad() = FakeDevice::tensor<float>({-2});
  scaler.unscale_(opt);
  EXPECT_EQ(FakeDevice::calls(), std::vector<std::string>{"unscale 2"});
  EXPECT_TRUE(c.grad().equal(full({2}, 2.0)));
  EXPECT_EQ(FakeDevice::values<float>(d0.grad()), (std::vector<float>{1, 3}));
  EXPECT_EQ(FakeDevice::values<float>(d1.grad()), (std::vector<float>{-0.5f}));

  // An inf on the device only: its verdict skips the step (no optimizer kernel runs) and the
  // update backs off.
  scaler.update(4.0);
  FakeDevice::data<float>(d0.grad())[1] = INFINITY;
  c.mutable_grad() = full({2}, 8.0);
  EXPECT_FALSE(scaler.step(opt));
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 2.0);
  EXPECT_EQ(FakeDevice::calls().size(), 2u);
  EXPECT_TRUE(c.detach().equal(zeros({2})));
}

// A device type whose backend has no amp entry is refused by the op's name and the device, before
// any of its memory is read as the host's.
TEST(GradScaler, ADeviceWithoutTheEntryIsRefused) {
  test::FakeDevice fake;
  Tensor d = test::FakeDevice::tensor<float>({0}).requires_grad_();
  optim::SGD opt({d}, {.lr = 0.5});
  GradScaler scaler;
  scaler.scale(ones({1}));
  d.mutable_grad() = test::FakeDevice::tensor<float>({1});
  EXPECT_ERROR(scaler.unscale_(opt), "[GradScaler.unscale_] " + test::kMissing);
}

}  // namespace
}  // namespace ember::amp
