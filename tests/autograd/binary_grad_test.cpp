// Gradients of the binary arithmetic ops (src/ops/binary.cpp), with broadcasting,
// non-contiguous inputs, scalar operands and the in-place forms.
#include "grad_table.h"

namespace ember::gradtest {
namespace {

const GradCase kCases[] = {
    {"add", "AddBackward0", [] { return In{x({3, 4}), x({3, 4})}; },
     [](const In& t) { return t[0] + t[1]; }},
    {"add_alpha_broadcast", "AddBackward0", [] { return In{x({3, 4}), x({4})}; },
     [](const In& t) { return add(t[0], t[1], 2.5); }},
    {"add_scalar", "AddBackward1", [] { return In{xt({3, 4})}; },
     [](const In& t) { return t[0] + 3; }},
    {"sub_broadcast_both", "SubBackward0", [] { return In{x({3, 1}), x({1, 4})}; },
     [](const In& t) { return sub(t[0], t[1], 0.5); }},
    {"rsub_scalar", "RsubBackward1", [] { return In{x({5})}; },
     [](const In& t) { return 2 - t[0]; }},
    {"mul", "MulBackward0", [] { return In{xt({3, 4}), x({3, 4})}; },
     [](const In& t) { return t[0] * t[1]; }},
    {"mul_constant", "MulBackward0", [] { return In{x({3, 4}), c({4})}; },
     [](const In& t) { return t[0] * t[1]; }},
    {"mul_scalar", "MulBackward1", [] { return In{x({2, 3})}; },
     [](const In& t) { return t[0] * -1.5; }},
    {"mul_0d", "MulBackward0", [] { return In{x({}), x({2, 3})}; },
     [](const In& t) { return t[0] * t[1]; }},
    {"div", "DivBackward0", [] { return In{x({3, 4}), pos({4})}; },
     [](const In& t) { return t[0] / t[1]; }},
    {"div_scalar", "DivBackward1", [] { return In{x({3})}; },
     [](const In& t) { return t[0] / 4; }},
    {"rdiv_scalar", "", [] { return In{pos({3})}; },
     [](const In& t) { return 2 / t[0]; }},
    {"pow_scalar", "PowBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { return t[0].pow(3); }},
    {"pow_fractional", "PowBackward0", [] { return In{pos({4})}; },
     [](const In& t) { return t[0].pow(1.7); }},
    {"pow_tensor", "PowBackward1", [] { return In{pos({3, 4}), x({4})}; },
     [](const In& t) { return t[0].pow(t[1]); }},
    {"pow_scalar_base", "PowBackward2", [] { return In{x({4})}; },
     [](const In& t) { return pow(2.5, t[0]); }},
    {"add_inplace", "AddBackward0", [] { return In{x({3, 4}), x({4})}; },
     [](const In& t) { Tensor a = t[0] * 1; a.add_(t[1], 2); return a; }},
    {"mul_inplace", "MulBackward0", [] { return In{x({3, 4}), x({3, 4})}; },
     [](const In& t) { Tensor a = t[0] * 1; a.mul_(t[1]); return a; }},
    {"div_inplace", "DivBackward0", [] { return In{x({3, 4}), pos({3, 4})}; },
     [](const In& t) { Tensor a = t[0] + 0; a.div_(t[1]); return a; }},
    {"pow_inplace", "PowBackward0", [] { return In{x({3})}; },
     [](const In& t) { Tensor a = t[0] * 1; a.pow_(2); return a; }},
};

EMBER_GRAD_TABLE(Binary, kCases);

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
