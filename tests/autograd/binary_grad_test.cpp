// Gradients of the binary arithmetic ops (src/ops/binary.cpp), with broadcasting,
// non-contiguous inputs, scalar operands and the in-place forms: the samples of the op table's
// binary rows (ops/op_table.h).
#include <cmath>

#include "grad_table.h"
#include "ops/op_table.h"

namespace ember::gradtest {
namespace {

// The rows: every binary row of the op table (ops/op_table.h).
const std::vector<GradCase> kCases = test::grad_cases({test::Family::binary});

EMBER_GRAD_TABLE(Binary, kCases);

std::vector<double> values(const Tensor& t) {
  std::vector<double> r;
  for (int64_t i = 0; i < t.numel(); ++i) r.push_back(t.select(0, i).item<double>());
  return r;
}

TEST(BinaryGrad, MaximumAndMinimumSplitTiesInHalf) {
  Tensor a = tensor({1.0, 2.0, 3.0}, {.requires_grad = true});
  Tensor b = tensor({1.0, 1.0, 4.0}, {.requires_grad = true});
  maximum(a, b).sum().backward();
  EXPECT_EQ(values(a.grad()), (std::vector<double>{0.5, 1, 0}));
  EXPECT_EQ(values(b.grad()), (std::vector<double>{0.5, 0, 1}));
  a = a.detach().requires_grad_();
  b = b.detach().requires_grad_();
  minimum(a, b).sum().backward();
  EXPECT_EQ(values(a.grad()), (std::vector<double>{0.5, 0, 1}));
  EXPECT_EQ(values(b.grad()), (std::vector<double>{0.5, 1, 0}));
  // a NaN passes the gradient to both
  Tensor n = tensor({NAN, 1.0}, {.requires_grad = true});
  Tensor m = tensor({1.0, NAN}, {.requires_grad = true});
  maximum(n, m).sum().backward();
  EXPECT_EQ(values(n.grad()), (std::vector<double>{1, 1}));
  EXPECT_EQ(values(m.grad()), (std::vector<double>{1, 1}));
}

TEST(BinaryGrad, FmaxAndFminGiveTiesToSelf) {
  Tensor a = tensor({1.0, 2.0, 3.0}, {.requires_grad = true});
  Tensor b = tensor({1.0, 1.0, 4.0}, {.requires_grad = true});
  fmax(a, b).sum().backward();
  EXPECT_EQ(values(a.grad()), (std::vector<double>{1, 1, 0}));
  EXPECT_EQ(values(b.grad()), (std::vector<double>{0, 0, 1}));
  a = a.detach().requires_grad_();
  b = b.detach().requires_grad_();
  fmin(a, b).sum().backward();
  EXPECT_EQ(values(a.grad()), (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(values(b.grad()), (std::vector<double>{0, 1, 0}));
  Tensor n = tensor({NAN, 1.0}, {.requires_grad = true});
  Tensor m = tensor({1.0, NAN}, {.requires_grad = true});
  fmax(n, m).sum().backward();
  EXPECT_EQ(values(n.grad()), (std::vector<double>{0, 1}));
  EXPECT_EQ(values(m.grad()), (std::vector<double>{1, 0}));
}

TEST(BinaryGrad, XlogyAtZero) {
  Tensor a = tensor({0.0, 1.0, 0.0}, {.dtype = kFloat64, .requires_grad = true});
  Tensor b = tensor({0.0, 2.0, 3.0}, {.dtype = kFloat64, .requires_grad = true});
  xlogy(a, b).sum().backward();
  EXPECT_EQ(values(a.grad()), (std::vector<double>{0, std::log(2.0), std::log(3.0)}));
  EXPECT_TRUE(std::isnan(values(b.grad())[0]));
  EXPECT_EQ(values(b.grad())[1], 0.5);
  EXPECT_EQ(values(b.grad())[2], 0);
}

TEST(BinaryGrad, FloorDivideAndScalarRemainderHaveNoDerivative) {
  Tensor a = tensor({3.0, 4.0}, {.requires_grad = true});
  Tensor b = tensor({2.0, 3.0}, {.requires_grad = true});
  for (const Tensor& out : {floor_divide(a, b), floor_divide(a, 2), remainder(2, a)}) {
    EXPECT_EQ(out.grad_fn()->name(), "torch::autograd::NotImplemented");
    try {
      out.sum().backward();
      FAIL();
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("is not implemented"), std::string::npos) << e.what();
    }
  }
  try {
    floor_divide(a, b).sum().backward();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("derivative for aten::floor_divide is not implemented"),
              std::string::npos)
        << e.what();
  }
}

// The reference's worked example, through the real ops.
TEST(BinaryGrad, ReferenceWorkedExample) {
  Tensor x = tensor(2.0, {.requires_grad = true}), y = tensor(3.0, {.requires_grad = true});
  Tensor c = (x * y + x).pow(2);
  EXPECT_EQ(c.grad_fn()->name(), "PowBackward0");
  EXPECT_EQ(c.grad_fn()->next_functions()[0].function->name(), "AddBackward0");
  c.backward({.retain_graph = true});
  EXPECT_EQ(x.grad().item<double>(), 64);
  EXPECT_EQ(y.grad().item<double>(), 32);
  c.backward();
  EXPECT_EQ(x.grad().item<double>(), 128);
  EXPECT_EQ(y.grad().item<double>(), 64);
  try {
    c.backward();
    FAIL() << "a third backward must fail";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Specify retain_graph=true"), std::string::npos)
        << e.what();
  }
}

TEST(BinaryGrad, BroadcastGradientsAreSummedAndCastToTheInputDtype) {
  Tensor a = ones({2, 3}, {.requires_grad = true});
  Tensor b = ones({3}, {.dtype = kFloat64, .requires_grad = true});
  (a * b).sum().backward();
  EXPECT_EQ(b.grad().dtype(), kFloat64);
  EXPECT_EQ(b.grad().sizes(), IntArrayRef({3}));
  EXPECT_EQ(b.grad().select(0, 0).item<double>(), 2);
  EXPECT_EQ(a.grad().dtype(), kFloat32);
}

TEST(BinaryGrad, InPlaceOnALeafThatRequiresGradIsRefused) {
  Tensor a = ones({3}, {.requires_grad = true});
  try {
    a.add_(1);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("a leaf Variable that requires grad is being used in an "
                                         "in-place operation."),
              std::string::npos)
        << e.what();
  }
  NoGradGuard g;
  a.add_(1);  // allowed without grad mode (optimizer steps)
  EXPECT_EQ(a.select(0, 0).item<double>(), 2);
}

TEST(BinaryGrad, ModifyingASavedInputIsDetected) {
  Tensor a = ones({3}, {.requires_grad = true});
  Tensor b = a * 2;
  Tensor c = b * b;
  b.add_(1);
  try {
    c.sum().backward();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("modified by an inplace operation"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("MulBackward0"), std::string::npos) << e.what();
  }
}

TEST(BinaryGrad, NoGradAndInferenceModeRecordNothing) {
  Tensor a = ones({3}, {.requires_grad = true});
  {
    NoGradGuard g;
    EXPECT_FALSE((a * 2).grad_fn());
    EXPECT_FALSE((a * 2).requires_grad());
  }
  {
    InferenceMode g;
    EXPECT_FALSE((a + a).grad_fn());
  }
  EXPECT_TRUE((a + a).grad_fn());
}

}  // namespace
}  // namespace ember::gradtest
