// batch_norm, layer_norm, group_norm and rms_norm against PyTorch 1.13 (golden/nn.json, family
// "norm"): outputs, running-stat updates after a training-mode batch_norm, strided inputs, the
// backward kernels' gradients, and error messages. Plus: the statistics' accuracy on data with a
// large mean, float16 inputs, and the momentum=None contract.
#include "ops/nn_golden.h"
#include "ops/norm.h"
#include "test_support.h"

namespace {

using namespace nn_golden;
namespace F = ember::nn::functional;

Outputs run_batch_norm(const Case& c) {
  const Tensor x = c["input"], w = c["weight"], b = c["bias"];
  const Tensor rm = c["running_mean"], rv = c["running_var"];
  const bool training = c.arg("training", false);
  Outputs out;
  out["out"] = F::batch_norm(x, rm, rv, {.weight = w, .bias = b, .training = training,
                                         .momentum = c.arg("momentum", 0.1),
                                         .eps = c.arg("eps", 1e-5)});
  if (rm.defined()) {
    out["running_mean"] = rm;
    out["running_var"] = rv;
  }
  if (c["grad_out"].defined()) {
    // Stats for the backward from a second forward on fresh running-stat copies.
    const Tensor rm2 = rm.defined() ? rm.clone() : Tensor(), rv2 = rv.defined() ? rv.clone() : Tensor();
    auto [y, mean, invstd] = F::batch_norm_forward(x, w, b, rm2, rv2, training, 0.1,
                                                   c.arg("eps", 1e-5));
    auto [gi, gw, gb] = F::batch_norm_backward(c["grad_out"], x, w, mean, invstd, training);
    out["grad_input"] = gi;
    out["grad_weight"] = gw;
    out["grad_bias"] = gb;
  }
  return out;
}

Outputs run_layer_norm(const Case& c) {
  const std::vector<int64_t> ns = c.c["args"]["normalized_shape"];
  const Tensor x = c["input"], w = c["weight"], b = c["bias"];
  const double eps = c.arg("eps", 1e-5);
  Outputs out;
  out["out"] = F::layer_norm(x, ns, {.weight = w, .bias = b, .eps = eps});
  if (c["grad_out"].defined()) {
    auto [y, mean, rstd] = F::layer_norm_forward(x, ns, w, b, eps);
    auto [gi, gw, gb] = F::layer_norm_backward(c["grad_out"], x, ns, mean, rstd, w);
    out["grad_input"] = gi;
    out["grad_weight"] = gw;
    out["grad_bias"] = gb;
  }
  return out;
}

Outputs run_group_norm(const Case& c) {
  const int64_t g = c.arg<int64_t>("num_groups", 1);
  const Tensor x = c["input"], w = c["weight"], b = c["bias"];
  const double eps = c.arg("eps", 1e-5);
  Outputs out;
  out["out"] = F::group_norm(x, g, {.weight = w, .bias = b, .eps = eps});
  if (c["grad_out"].defined()) {
    auto [y, mean, rstd] = F::group_norm_forward(x, g, w, b, eps);
    auto [gi, gw, gb] = F::group_norm_backward(c["grad_out"], x, g, mean, rstd, w);
    out["grad_input"] = gi;
    out["grad_weight"] = gw;
    out["grad_bias"] = gb;
  }
  return out;
}

Outputs run_rms_norm(const Case& c) {
  const std::vector<int64_t> ns = c.c["args"]["normalized_shape"];
  const Tensor x = c["input"], w = c["weight"];
  const std::optional<double> eps = c.opt<double>("eps");
  Outputs out;
  out["out"] = F::rms_norm(x, ns, {.weight = w, .eps = eps});
  if (c["grad_out"].defined()) {
    auto [y, rstd] = F::rms_norm_forward(x, ns, w, eps);
    auto [gi, gw] = F::rms_norm_backward(c["grad_out"], x, ns, rstd, w);
    out["grad_input"] = gi;
    out["grad_weight"] = gw;
  }
  return out;
}

TEST(Norm, GoldenAgainstPyTorch) {
  run_family("norm",
             {{"batch_norm", run_batch_norm},
              {"layer_norm", run_layer_norm},
              {"group_norm", run_group_norm},
              {"rms_norm", run_rms_norm}},
             [](const Case& c) {
               // PyTorch's own float32 kernels compute x * a + b with |x| ~ 1e3..1e4, so they
               // are only that exact there (ember's statistics are more accurate).
               return c.c["name"].get<std::string>().find("large mean") != std::string::npos
                          ? 2e-3
                          : 0.0;
             });
}

// The statistics hold up where a one-pass sum of squares in float would not.
TEST(Norm, LargeMeanStatistics) {
  manual_seed(1);
  const Tensor base = randn({4, 3, 5000}, {.dtype = kFloat64});
  const Tensor x = (base + 1e5).to(kFloat32);
  auto [y, mean, invstd] = F::batch_norm_forward(x, {}, {}, {}, {}, true, 0.1, 0.0);
  const Tensor xd = x.to(kFloat64);
  const std::vector<int64_t> red{0, 2}, last{1};
  const Tensor want_mean = xd.mean(red), want_var = xd.var(IntArrayRef(red), 0);
  EXPECT_TRUE(allclose(mean.to(kFloat64), want_mean, 1e-7, 0));
  EXPECT_TRUE(allclose(invstd.to(kFloat64), want_var.rsqrt(), 1e-4, 0));
  auto [ly, lmean, lrstd] = F::layer_norm_forward(x.view({12, 5000}), {5000}, {}, {}, 0.0);
  EXPECT_TRUE(allclose(lrstd.view({12}).to(kFloat64), xd.view({12, 5000}).var(IntArrayRef(last), 0).rsqrt(),
                       1e-4, 0));
}

TEST(Norm, PlanarAndColumnLayoutsAgree) {
  // Note [Batch norm layouts]: the same numbers whichever path a shape takes.
  manual_seed(2);
  const Tensor x = randn({6, 4, 64});
  const Tensor rm = zeros({4}), rv = ones({4});
  const Tensor a = F::batch_norm(x, rm, rv, {.training = true});
  const Tensor b = F::batch_norm(x.permute({0, 2, 1}).reshape({384, 4}), zeros({4}), ones({4}),
                                 {.training = true});
  EXPECT_TRUE(allclose(a.permute({0, 2, 1}).reshape({384, 4}), b, 1e-5, 1e-5));
}

TEST(Norm, HalfInputsComputeInFloat) {
  manual_seed(3);
  const Tensor x = randn({4, 8, 6});
  const Tensor w = randn({6}), b = randn({6});
  const Tensor h = F::layer_norm(x.to(kFloat16), {6}, {.weight = w, .bias = b});
  EXPECT_EQ(h.dtype(), kFloat16);
  EXPECT_TRUE(allclose(h.to(kFloat32), F::layer_norm(x.to(kFloat16).to(kFloat32), {6},
                                                     {.weight = w, .bias = b}),
                       2e-3, 2e-3));
  const Tensor g = F::group_norm(x.to(kBFloat16), 2);
  EXPECT_EQ(g.dtype(), kBFloat16);
  const Tensor r = F::rms_norm(x.to(kFloat16), {6});
  EXPECT_EQ(r.dtype(), kFloat16);
}

TEST(Norm, MomentumNoneNeedsAFactor) {
  const Tensor x = randn({4, 3}), rm = zeros({3}), rv = ones({3});
  try {
    F::batch_norm(x, rm, rv, {.training = true, .momentum = std::nullopt});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("1 / num_batches_tracked"), std::string::npos);
  }
  // Nothing to update: accepted.
  EXPECT_NO_THROW(F::batch_norm(x, rm, rv, {.training = false, .momentum = std::nullopt}));
  EXPECT_NO_THROW(F::batch_norm(x, {}, {}, {.training = true, .momentum = std::nullopt}));
}

TEST(Norm, EvalUsesRunningStats) {
  const Tensor x = tensor({{1.0, 2.0}, {3.0, 4.0}});
  const Tensor rm = tensor({1.0, 2.0}), rv = tensor({4.0, 1.0});
  const Tensor y = F::batch_norm(x, rm, rv, {.eps = 0.0});
  EXPECT_TRUE(allclose(y, tensor({{0.0, 0.0}, {1.0, 2.0}})));
  EXPECT_TRUE(rm.equal(tensor({1.0, 2.0})));  // untouched in eval
}

// The fused row-norm backward sums the weight's and bias's gradients over blocks of rows; the
// blocks follow the shape, not the thread count (Note [Fused row norm backward]), so 1 and 2
// threads give the same bits, as ember's reductions do.
TEST(Norm, RowNormGradientsDoNotDependOnTheThreadCount) {
  ember::test::ThreadGuard guard;
  manual_seed(5);
  const Tensor x = randn({96, 37, 129}), dy = randn({96, 37, 129});
  const Tensor w = randn({129}), b = randn({129});
  const auto grads = [&](bool rms) {
    const Tensor xi = x.detach().requires_grad_(), wi = w.detach().requires_grad_();
    const Tensor bi = b.detach().requires_grad_();
    const Tensor y = rms ? F::rms_norm(xi, {129}, {.weight = wi})
                         : F::layer_norm(xi, {129}, {.weight = wi, .bias = bi});
    y.backward(dy);
    return rms ? std::vector{xi.grad(), wi.grad()} : std::vector{xi.grad(), wi.grad(), bi.grad()};
  };
  for (const bool rms : {false, true}) {
    set_num_threads(1);
    const std::vector<Tensor> one = grads(rms);
    set_num_threads(2);
    const std::vector<Tensor> two = grads(rms);
    for (size_t i = 0; i < one.size(); ++i)
      EXPECT_TRUE(one[i].equal(two[i])) << (rms ? "rms_norm" : "layer_norm") << " gradient " << i;
  }
}

}  // namespace
