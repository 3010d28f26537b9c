// The losses against PyTorch 1.13 (golden/nn.json, family "loss"): every op, reduction and
// option, strided inputs, the fused cross-entropy / nll gradients, and error messages. The fused
// cross_entropy is also checked against its composite reference, log_softmax + nll_loss (plus the
// smoothing term), on larger random inputs.
#include "ops/loss.h"
#include "ops/nn_golden.h"

namespace {

using namespace nn_golden;
namespace F = ember::nn::functional;

std::string reduction(const Case& c) { return c.arg<std::string>("reduction", "mean"); }

Outputs run_cross_entropy(const Case& c) {
  const F::CrossEntropyFuncOptions o{.weight = c["weight"],
                                     .ignore_index = c.arg<int64_t>("ignore_index", -100),
                                     .reduction = reduction(c),
                                     .label_smoothing = c.arg("label_smoothing", 0.0)};
  Outputs out{{"out", F::cross_entropy(c["input"], c["target"], o)}};
  if (c["grad_out"].defined())
    out["grad_input"] = F::cross_entropy_backward(c["grad_out"], c["input"], c["target"], o);
  return out;
}

Outputs run_nll_loss(const Case& c) {
  const F::NLLLossFuncOptions o{.weight = c["weight"],
                                .ignore_index = c.arg<int64_t>("ignore_index", -100),
                                .reduction = reduction(c)};
  Outputs out{{"out", F::nll_loss(c["input"], c["target"], o)}};
  if (c["grad_out"].defined())
    out["grad_input"] = F::nll_loss_backward(c["grad_out"], c["input"], c["target"], o);
  return out;
}

Outputs one(const Tensor& t) { return {{"out", t}}; }

TEST(Loss, GoldenAgainstPyTorch) {
  run_family(
      "loss",
      {{"cross_entropy", run_cross_entropy},
       {"nll_loss", run_nll_loss},
       {"mse_loss",
        [](const Case& c) {
          return one(F::mse_loss(c["input"], c["target"], {.reduction = reduction(c)}));
        }},
       {"l1_loss",
        [](const Case& c) {
          return one(F::l1_loss(c["input"], c["target"], {.reduction = reduction(c)}));
        }},
       {"smooth_l1_loss",
        [](const Case& c) {
          return one(F::smooth_l1_loss(c["input"], c["target"],
                                       {.reduction = reduction(c), .beta = c.arg("beta", 1.0)}));
        }},
       {"huber_loss",
        [](const Case& c) {
          return one(F::huber_loss(c["input"], c["target"],
                                   {.reduction = reduction(c), .delta = c.arg("delta", 1.0)}));
        }},
       {"binary_cross_entropy",
        [](const Case& c) {
          return one(F::binary_cross_entropy(c["input"], c["target"],
                                             {.weight = c["weight"], .reduction = reduction(c)}));
        }},
       {"binary_cross_entropy_with_logits",
        [](const Case& c) {
          return one(F::binary_cross_entropy_with_logits(
              c["input"], c["target"],
              {.weight = c["weight"], .reduction = reduction(c), .pos_weight = c["pos_weight"]}));
        }},
       {"kl_div",
        [](const Case& c) {
          return one(F::kl_div(c["input"], c["target"],
                               {.reduction = reduction(c),
                                .log_target = c.arg("log_target", false)}));
        }},
       {"cosine_embedding_loss",
        [](const Case& c) {
          return one(F::cosine_embedding_loss(
              c["input1"], c["input2"], c["target"],
              {.margin = c.arg("margin", 0.0), .reduction = reduction(c)}));
        }},
       {"margin_ranking_loss",
        [](const Case& c) {
          return one(F::margin_ranking_loss(
              c["input1"], c["input2"], c["target"],
              {.margin = c.arg("margin", 0.0), .reduction = reduction(c)}));
        }},
       {"triplet_margin_loss", [](const Case& c) {
          return one(F::triplet_margin_loss(c["anchor"], c["positive"], c["negative"],
                                            {.margin = c.arg("margin", 1.0),
                                             .p = c.arg("p", 2.0),
                                             .eps = c.arg("eps", 1e-6),
                                             .swap = c.arg("swap", false),
                                             .reduction = reduction(c)}));
        }}},
      [](const Case& c) {
        // Losses summed over many positions are O(100): hold them to 1e-5 relative only.
        return c.c["name"].get<std::string>().find("large logits") != std::string::npos ? 1e-3
                                                                                        : 0.0;
      });
}

// ── the fused kernel against its composite reference ────────────────────
// (1 - ls) nll_loss(log_softmax(x)) + ls / C * smooth, with PyTorch 1.13's weighting.
Tensor composite_cross_entropy(const Tensor& x, const Tensor& t, const Tensor& w, int64_t ignore,
                               double ls, const std::string& red) {
  const Tensor lp = log_softmax(x, 1);
  const Tensor nll = F::nll_loss(lp, t, {.weight = w, .ignore_index = ignore, .reduction = red});
  if (ls == 0) return nll;
  const int64_t C = x.size(1);
  const Tensor valid = t != ignore;
  DimVector wshape(size_t(x.dim()), 1);
  wshape[1] = C;
  const Tensor smooth = -(w.defined() ? lp * w.view(wshape) : lp).sum(1) * valid;
  Tensor s;
  if (red == "none") {
    s = smooth;
  } else if (red == "sum") {
    s = smooth.sum();
  } else {
    const Tensor tw = w.defined() ? (w.index_select(0, t.clamp_min(0).flatten()) *
                                     valid.flatten()).sum()
                                  : valid.sum().to(kFloat32);
    s = smooth.sum() / tw;
  }
  return nll * (1 - ls) + s * (ls / double(C));
}

TEST(Loss, FusedCrossEntropyMatchesComposite) {
  manual_seed(11);
  for (const std::string red : {"mean", "sum", "none"}) {
    for (double ls : {0.0, 0.15}) {
      for (bool weighted : {false, true}) {
        const Tensor x = randn({64, 37}) * 3;
        Tensor t = randint(0, 37, {64});
        t.index_put_({Slice(0, 5)}, -100);
        const Tensor w = weighted ? rand({37}) + 0.5 : Tensor();
        const Tensor got = F::cross_entropy(x, t, {.weight = w, .reduction = red,
                                                   .label_smoothing = ls});
        const Tensor want = composite_cross_entropy(x, t, w, -100, ls, red);
        EXPECT_TRUE(allclose(got, want, 1e-5, 1e-5)) << red << " ls=" << ls << " w=" << weighted;
        // Spatial: (N, C, H, W).
        const Tensor xs = randn({4, 7, 5, 6});
        const Tensor ts = randint(0, 7, {4, 5, 6});
        EXPECT_TRUE(allclose(F::cross_entropy(xs, ts, {.reduction = red, .label_smoothing = ls}),
                             composite_cross_entropy(xs, ts, {}, -100, ls, red), 1e-5, 1e-5));
      }
    }
  }
}

// The gradient by central differences in float64.
TEST(Loss, CrossEntropyGradientByFiniteDifferences) {
  manual_seed(12);
  const Tensor x = randn({3, 4, 2}, {.dtype = kFloat64});
  const Tensor t = tensor({{0, 3}, {-100, 1}, {2, 2}});
  const Tensor w = tensor({0.5, 1.0, 2.0, 1.5}, kFloat64);
  const F::CrossEntropyFuncOptions o{.weight = w, .label_smoothing = 0.2};
  const Tensor g = F::cross_entropy_backward(tensor(1.0, kFloat64), x, t, o);
  const std::vector<double> gv = g.contiguous().tolist<double>();
  const double h = 1e-6;
  for (int64_t i = 0; i < x.numel(); ++i) {
    Tensor xp = x.clone(), xm = x.clone();
    xp.view({-1}).index_put_({i}, x.view({-1}).index({i}) + h);
    xm.view({-1}).index_put_({i}, x.view({-1}).index({i}) - h);
    const double fd = (F::cross_entropy(xp, t, o).item<double>() -
                       F::cross_entropy(xm, t, o).item<double>()) / (2 * h);
    EXPECT_NEAR(gv[size_t(i)], fd, 1e-7) << i;
  }
}

// Spatial inputs take the column kernel (SIMD across positions); its gradient must equal the
// row kernel's on the same positions laid out as rows.
TEST(Loss, SpatialGradientMatchesRows) {
  manual_seed(14);
  const Tensor x = randn({2, 7, 6, 9}) * 2;
  Tensor t = randint(0, 7, {2, 6, 9});
  t.index_put_({0, 1}, -100);
  const Tensor xr = x.movedim(1, -1).reshape({-1, 7}), tr = t.reshape({-1});
  for (const std::string red : {"none", "mean", "sum"}) {
    const F::CrossEntropyFuncOptions o{.weight = rand({7}) + 0.5, .reduction = red,
                                       .label_smoothing = 0.1};
    const Tensor go = red == "none" ? randn({2, 6, 9}) : tensor(0.7);
    const Tensor g = F::cross_entropy_backward(go, x, t, o);
    const Tensor gr = F::cross_entropy_backward(red == "none" ? go.reshape({-1}) : go, xr, tr, o);
    EXPECT_TRUE(allclose(g, gr.reshape({2, 6, 9, 7}).movedim(-1, 1), 1e-5, 1e-6)) << red;
    EXPECT_TRUE(allclose(F::cross_entropy(x, t, o),
                         red == "none" ? F::cross_entropy(xr, tr, o).reshape({2, 6, 9})
                                       : F::cross_entropy(xr, tr, o),
                         1e-5, 1e-6))
        << red;
  }
}

TEST(Loss, CrossEntropyHalfInput) {
  manual_seed(13);
  const Tensor x = randn({8, 10});
  const Tensor t = randint(0, 10, {8});
  const Tensor h = F::cross_entropy(x.to(kFloat16), t);
  EXPECT_EQ(h.dtype(), kFloat16);
  EXPECT_NEAR(h.item<double>(), F::cross_entropy(x.to(kFloat16).to(kFloat32), t).item<double>(),
              2e-3);
}

}  // namespace
