// Gradients of the elementwise one-input ops (src/ops/unary.cpp, src/ops/activation.cpp) and of
// where/masked_fill (src/ops/compare.cpp): gradcheck and gradgradcheck per sample of the op
// table's rows (ops/op_table.h: non-contiguous, 0-d and in-place samples), plus the subgradient
// conventions at kinks and ties.
#include <cmath>

#include "grad_table.h"
#include "ops/op_table.h"

namespace ember::gradtest {
namespace {

// The rows: every unary, activation and comparison row of the op table (ops/op_table.h).
const std::vector<GradCase> kCases =
    test::grad_cases({test::Family::unary, test::Family::activation, test::Family::compare});

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
