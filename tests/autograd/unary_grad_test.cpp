// Gradients of the elementwise one-input ops (src/ops/unary.cpp, src/ops/activation.cpp) and of
// where/masked_fill (src/ops/compare.cpp): gradcheck and gradgradcheck per row, with
// non-contiguous, 0-d and in-place rows, plus the subgradient conventions at kinks and ties.
#include <cmath>

#include "grad_table.h"

namespace ember::gradtest {
namespace {

Tensor mask34() {
  return tensor({true, false, true, false}).expand({3, 4});
}
// Values kept away from a kink at `k` (so finite differences do not straddle it).
Tensor away(IntArrayRef shape, double k = 0) {
  Tensor t = c(shape);
  Tensor s = where(t >= 0, 1.0, -1.0);
  return (t + s * 0.1 + k).requires_grad_();
}

#define U(name, node, input, expr) \
  {#name, node, [] { return In{input}; }, [](const In& t) { return expr; }}

const GradCase kCases[] = {
    U(neg, "NegBackward0", xt({3, 4}), -t[0]),
    U(neg_0d, "NegBackward0", x({}), t[0].neg()),
    U(reciprocal, "ReciprocalBackward0", pos({3, 4}), t[0].reciprocal()),
    U(exp, "ExpBackward0", xt({3, 4}), t[0].exp()),
    U(exp_0d, "ExpBackward0", x({}), exp(t[0])),
    U(log, "LogBackward0", pos({3, 4}), t[0].log()),
    U(sqrt, "SqrtBackward0", pos({3, 4}), t[0].sqrt()),
    U(rsqrt, "RsqrtBackward0", pos({4}), t[0].rsqrt()),
    U(abs, "AbsBackward0", away({3, 4}), t[0].abs()),
    U(sign, "SignBackward0", away({3, 4}), t[0].sign()),
    U(square, "PowBackward0", xt({3, 4}), t[0].square()),
    U(exp2, "Exp2Backward0", x({5}), t[0].exp2()),
    U(expm1, "Expm1Backward0", x({5}), t[0].expm1()),
    U(log2, "Log2Backward0", pos({5}), t[0].log2()),
    U(log10, "Log10Backward0", pos({5}), t[0].log10()),
    U(log1p, "Log1PBackward0", pos({5}), t[0].log1p()),
    U(sin, "SinBackward0", xt({3, 4}), t[0].sin()),
    U(cos, "CosBackward0", x({5}), t[0].cos()),
    U(tan, "TanBackward0", x({5}, -1, 1), t[0].tan()),
    U(asin, "AsinBackward0", x({5}, -0.9, 0.9), t[0].asin()),
    U(acos, "AcosBackward0", x({5}, -0.9, 0.9), t[0].acos()),
    U(atan, "AtanBackward0", x({5}), t[0].atan()),
    U(sinh, "SinhBackward0", x({5}), t[0].sinh()),
    U(cosh, "CoshBackward0", x({5}), t[0].cosh()),
    U(tanh, "TanhBackward0", xt({3, 4}), t[0].tanh()),
    U(erf, "ErfBackward0", x({5}), t[0].erf()),
    U(erfc, "ErfcBackward0", x({5}), t[0].erfc()),
    U(floor, "FloorBackward0", away({5}, 0.5), t[0].floor()),
    U(ceil, "CeilBackward0", away({5}, 0.5), t[0].ceil()),
    U(round, "RoundBackward0", away({5}, 0.25), t[0].round()),
    U(round_decimals, "RoundBackward1", x({5}), t[0].round(3)),
    U(trunc, "TruncBackward0", away({5}, 0.5), t[0].trunc()),
    U(frac, "FracBackward0", away({5}, 0.5), t[0].frac()),
    U(clamp, "ClampBackward1", away({3, 4}, 0.05), t[0].clamp(-0.5, 0.5)),
    U(clamp_min_only, "ClampBackward1", away({3, 4}), t[0].clamp(0.0)),
    U(clamp_max_only, "ClampBackward1", away({3, 4}), clamp(t[0], std::nullopt, 0.0)),
    U(clamp_min, "ClampMinBackward0", away({3, 4}), t[0].clamp_min(0.0)),
    U(clamp_max, "ClampMaxBackward0", away({3, 4}), t[0].clamp_max(0.0)),
    U(nan_to_num, "NanToNumBackward0", x({5}), t[0].nan_to_num()),
    {"clamp_tensor", "ClampBackward0",
     [] {
       return In{x({3, 4}), (c({4}) - 1.2).requires_grad_(), (c({3, 1}) + 1.2).requires_grad_()};
     },
     [](const In& t) { return t[0].clamp(t[1], t[2]); }},
    {"where", "WhereBackward0", [] { return In{x({3, 4}), xt({3, 4})}; },
     [](const In& t) { return where(mask34(), t[0], t[1]); }},
    {"where_broadcast", "WhereBackward0", [] { return In{x({3, 1}), x({4})}; },
     [](const In& t) { return where(mask34(), t[0], t[1]); }},
    {"where_scalar", "WhereBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { return where(mask34(), t[0], 2.0); }},
    {"where_0d", "WhereBackward0", [] { return In{x({}), x({3, 4})}; },
     [](const In& t) { return where(mask34(), t[0], t[1]); }},
    {"masked_fill", "MaskedFillBackward0", [] { return In{xt({3, 4})}; },
     [](const In& t) { return t[0].masked_fill(mask34(), 1.5); }},
    {"masked_fill_broadcast", "MaskedFillBackward0", [] { return In{x({4})}; },
     [](const In& t) { return t[0].masked_fill(mask34(), 1.5); }},
    {"masked_fill_tensor", "MaskedFillBackward1", [] { return In{x({3, 4}), x({})}; },
     [](const In& t) { return t[0].masked_fill(mask34(), t[1]); }},
    // activations
    U(sigmoid, "SigmoidBackward0", xt({3, 4}), t[0].sigmoid()),
    U(sigmoid_0d, "SigmoidBackward0", x({}), sigmoid(t[0])),
    U(logit, "LogitBackward0", x({5}, 0.1, 0.9), t[0].logit()),
    U(logit_eps, "LogitBackward0", x({6}, 0.1, 0.9), t[0].logit(0.3)),
    U(relu, "ReluBackward0", away({3, 4}), t[0].relu()),
    U(relu6, "HardtanhBackward0", away({3, 4}, 3), relu6(t[0] * 2)),
    U(hardtanh, "HardtanhBackward0", away({3, 4}), hardtanh(t[0], -0.5, 1.0)),
    U(leaky_relu, "LeakyReluBackward0", away({3, 4}), leaky_relu(t[0], 0.2)),
    U(elu, "EluBackward0", away({3, 4}), elu(t[0], 1.3)),
    U(elu_scaled, "EluBackward0", away({3, 4}), elu(t[0], 1.3, 0.7, 1.5)),
    U(selu, "EluBackward0", xt({3, 4}), selu(t[0])),
    U(gelu, "GeluBackward0", xt({3, 4}), gelu(t[0])),
    U(gelu_tanh, "GeluBackward0", x({5}), gelu(t[0], {"tanh"})),
    U(silu, "SiluBackward0", xt({3, 4}), silu(t[0])),
    U(mish, "MishBackward0", x({5}), mish(t[0])),
    U(softplus, "SoftplusBackward0", x({5}), softplus(t[0])),
    U(softplus_beta_threshold, "SoftplusBackward0", away({3, 4}, 0.5), softplus(t[0], 2, 1.5)),
    U(hardsigmoid, "HardsigmoidBackward0", away({3, 4}), hardsigmoid(t[0] * 2)),
    U(hardswish, "HardswishBackward0", away({3, 4}), hardswish(t[0] * 2)),
    // in-place forms, on a non-leaf copy
    {"sigmoid_inplace", "SigmoidBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { Tensor a = t[0] * 1; return a.sigmoid_(); }},
    {"relu_inplace", "ReluBackward0", [] { return In{away({3, 4})}; },
     [](const In& t) { Tensor a = t[0] * 1; return a.relu_(); }},
    {"neg_inplace", "NegBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { Tensor a = t[0] * 1; return a.neg_(); }},
    {"abs_inplace", "AbsBackward0", [] { return In{away({3, 4})}; },
     [](const In& t) { Tensor a = t[0] * 1; return a.abs_(); }},
    {"exp_inplace", "ExpBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { Tensor a = t[0] * 1; return a.exp_(); }},
    {"log_inplace", "LogBackward0", [] { return In{pos({3, 4})}; },
     [](const In& t) { Tensor a = t[0] * 1; return a.log_(); }},
    {"sqrt_inplace", "SqrtBackward0", [] { return In{pos({3, 4})}; },
     [](const In& t) { Tensor a = t[0] * 1; return a.sqrt_(); }},
    {"tanh_inplace", "TanhBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { Tensor a = t[0] * 1; return a.tanh_(); }},
    {"reciprocal_inplace", "ReciprocalBackward0", [] { return In{pos({3, 4})}; },
     [](const In& t) { Tensor a = t[0] * 1; return a.reciprocal_(); }},
    {"clamp_inplace", "ClampBackward1", [] { return In{away({3, 4}, 0.05)}; },
     [](const In& t) { Tensor a = t[0] * 1; return a.clamp_(-0.5, 0.5); }},
    {"masked_fill_inplace", "MaskedFillBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { Tensor a = t[0] * 1; return a.masked_fill_(mask34(), -1); }},
    {"masked_fill_tensor_inplace", "MaskedFillBackward1", [] { return In{x({3, 4}), x({})}; },
     [](const In& t) { Tensor a = t[0] * 1; return a.masked_fill_(mask34(), t[1]); }},
};
#undef U

EMBER_GRAD_TABLE(Unary, kCases);

// d/dx of f at each of `points`, through backward.
std::vector<double> grads_at(const std::vector<double>& points,
                             const std::function<Tensor(const Tensor&)>& f) {
  Tensor t = zeros({int64_t(points.size())}, {.dtype = kFloat64});
  for (size_t i = 0; i < points.size(); ++i) t.data_ptr<double>()[i] = points[i];
  t.requires_grad_();
  f(t).sum().backward();
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i) out.push_back(t.grad().select(0, i).item<double>());
  return out;
}

TEST(UnaryGrad, ClampPassesTheGradientAtItsBounds) {
  EXPECT_EQ(grads_at({-1, 0, 1, 2}, [](const Tensor& t) { return t.clamp(0.0, 1.0); }),
            (std::vector<double>{0, 1, 1, 0}));
  EXPECT_EQ(grads_at({-1, 0, 1}, [](const Tensor& t) { return t.clamp_min(0.0); }),
            (std::vector<double>{0, 1, 1}));
  EXPECT_EQ(grads_at({-1, 0, 1}, [](const Tensor& t) { return t.clamp_max(0.0); }),
            (std::vector<double>{1, 1, 0}));
}

TEST(UnaryGrad, ClampWithTensorBoundsGivesTheBoundsTheirShare) {
  Tensor x = tensor({-1.0, 0.5, 2.0, 1.0}, {.requires_grad = true});
  Tensor lo = tensor({0.0, 0.0, 0.0, 3.0}, {.requires_grad = true});
  Tensor hi = tensor({1.0, 1.0, 1.0, 2.0}, {.requires_grad = true});  // crossed in the last
  x.clamp(lo, hi).sum().backward();
  auto v = [](const Tensor& t) {
    std::vector<double> r;
    for (int64_t i = 0; i < t.numel(); ++i) r.push_back(t.select(0, i).item<double>());
    return r;
  };
  EXPECT_EQ(v(x.grad()), (std::vector<double>{0, 1, 0, 0}));
  EXPECT_EQ(v(lo.grad()), (std::vector<double>{1, 0, 0, 0}));
  EXPECT_EQ(v(hi.grad()), (std::vector<double>{0, 0, 1, 1}));
}

TEST(UnaryGrad, AbsAndSignAtZero) {
  EXPECT_EQ(grads_at({-1, 0, 1}, [](const Tensor& t) { return t.abs(); }),
            (std::vector<double>{-1, 0, 1}));
  EXPECT_EQ(grads_at({-1, 0, 1}, [](const Tensor& t) { return t.sign(); }),
            (std::vector<double>{0, 0, 0}));
}

TEST(UnaryGrad, ActivationKinksFollowPyTorch) {
  EXPECT_EQ(grads_at({-1, 0, 1}, [](const Tensor& t) { return t.relu(); }),
            (std::vector<double>{0, 0, 1}));
  EXPECT_EQ(grads_at({-1, 0, 1, 2}, [](const Tensor& t) { return hardtanh(t, 0, 1); }),
            (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ(grads_at({-1, 0, 1, 6}, [](const Tensor& t) { return relu6(t); }),
            (std::vector<double>{0, 0, 1, 0}));
  EXPECT_EQ(grads_at({-3, 3, 0}, [](const Tensor& t) { return hardswish(t); }),
            (std::vector<double>{-0.5, 1.5, 0.5}));
  EXPECT_EQ(grads_at({-3, 3, 0}, [](const Tensor& t) { return hardsigmoid(t); }),
            (std::vector<double>{0, 0, 1.0 / 6}));
  EXPECT_EQ(grads_at({-1, 0, 1}, [](const Tensor& t) { return leaky_relu(t, 0.5); }),
            (std::vector<double>{0.5, 0.5, 1}));
  EXPECT_EQ(grads_at({0}, [](const Tensor& t) { return elu(t); }), (std::vector<double>{1}));
  // softplus above its threshold is the identity's gradient, with no overflow
  EXPECT_EQ(grads_at({1000}, [](const Tensor& t) { return softplus(t); }),
            (std::vector<double>{1}));
}

TEST(UnaryGrad, LogitOutsideItsDomain) {
  const auto g = grads_at({-0.5, 0, 0.5, 1, 1.5}, [](const Tensor& t) { return t.logit(); });
  EXPECT_TRUE(std::isnan(g[0]));
  EXPECT_EQ(g[1], INFINITY);
  EXPECT_EQ(g[2], 4);
  EXPECT_EQ(g[3], INFINITY);
  EXPECT_TRUE(std::isnan(g[4]));
  EXPECT_EQ(grads_at({-0.5, 0, 0.5, 1, 1.5}, [](const Tensor& t) { return t.logit(0.25); }),
            (std::vector<double>{0, 0, 4, 0, 0}));
}

TEST(UnaryGrad, WhereSendsEachBranchItsPart) {
  Tensor a = ones({3}, {.requires_grad = true}), b = ones({3}, {.requires_grad = true});
  where(tensor({true, false, true}), a, b).sum().backward();
  EXPECT_EQ(a.grad().sum().item<double>(), 2);
  EXPECT_EQ(b.grad().select(0, 1).item<double>(), 1);
  EXPECT_EQ(b.grad().select(0, 0).item<double>(), 0);
}

TEST(UnaryGrad, IntegerInputsAndNoGradRecordNothing) {
  EXPECT_FALSE(arange(3).exp().requires_grad());
  Tensor a = ones({3}, {.requires_grad = true});
  NoGradGuard g;
  EXPECT_FALSE(a.exp().grad_fn());
  EXPECT_FALSE(where(a > 0, a, a).grad_fn());
}

TEST(UnaryGrad, InPlaceOnALeafIsRefused) {
  Tensor a = ones({3}, {.requires_grad = true});
  try {
    a.exp_();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("a leaf Variable that requires grad"), std::string::npos)
        << e.what();
  }
}

TEST(UnaryGrad, ModifyingAResultSavedByExpIsDetected) {
  Tensor a = ones({3}, {.requires_grad = true});
  Tensor b = a.exp();
  b.add_(1);
  try {
    b.sum().backward();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("modified by an inplace operation"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ember::gradtest
