// In-place ops through views rewrite the base's history (Note [In-place on views]), inference
// tensors, and the errors PyTorch raises for in-place ops on leaves and their views and for
// views made under no_grad whose base is written.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "grad_table.h"
#include "test_support.h"

namespace ember::gradtest {
namespace {

std::vector<double> values(const Tensor& t) {
  const Tensor c = t.detach().to(kFloat64).contiguous();
  return {c.data_ptr<double>(), c.data_ptr<double>() + c.numel()};
}

TEST(InplaceView, SliceMulReachesTheBase) {
  // PyTorch: x = arange(4.).requires_grad_(); y = x * 1; y[0:2].mul_(3); (y * y).sum().backward()
  // -> x.grad == [0, 18, 4, 6] (d/dx of 9x^2 for the first two, x^2 for the rest).
  Tensor x = arange(4, {.dtype = kFloat64}).requires_grad_();
  Tensor y = x * 1;
  y.narrow(0, 0, 2).mul_(3);
  EXPECT_EQ(y.grad_fn()->name(), "CopySlices");
  (y * y).sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{0, 18, 4, 6}));
}

TEST(InplaceView, TransposedViewAndTheViewsOwnHistory) {
  Tensor x = arange(6, {.dtype = kFloat64}).view({2, 3}).requires_grad_();
  Tensor y = x * 2;
  Tensor v = y.t();
  v.add_(1);
  EXPECT_EQ(v.grad_fn()->name(), "AsStridedBackward0");
  v.sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>(6, 2.0)));
}

TEST(InplaceView, CopyIntoAViewOfAConstant) {
  // b does not require grad; writing a value that does makes b part of the graph.
  Tensor w = tensor({1.0, 2.0}, {.dtype = kFloat64}).requires_grad_();
  Tensor b = zeros({4}, {.dtype = kFloat64});
  b.narrow(0, 1, 2).copy_(w * 5);
  ASSERT_TRUE(b.requires_grad());
  (b * arange(4, {.dtype = kFloat64})).sum().backward();
  EXPECT_EQ(values(w.grad()), (std::vector<double>{5, 10}));
}

TEST(InplaceView, GradcheckThroughASelectedRow) {
  GradCase gc{"select_row_exp", "", [] { return In{x({3, 4})}; },
              [](const In& t) {
                Tensor y = t[0] * 1;
                y.select(0, 1).exp_();
                return y;
              }};
  run_case(gc);
}

// Views taken before an in-place write to their base (or to another view of it) see the write:
// their history is regenerated on next use. Expected values from PyTorch 1.13.
TEST(InplaceView, EarlierViewSeesAWriteToTheBase) {
  // x = tensor([1., 2, 3, 4], requires_grad=True); b = x * 1; v = b[:2]; b.mul_(3)
  // (v * tensor([1., 10])).sum().backward() -> x.grad == [3, 30, 0, 0]
  Tensor x = tensor({1.0, 2.0, 3.0, 4.0}, {.dtype = kFloat64}).requires_grad_();
  Tensor b = x * 1;
  Tensor v = b.narrow(0, 0, 2);
  EXPECT_EQ(v.grad_fn()->name(), "SliceBackward0");
  b.mul_(3);
  EXPECT_EQ(v.grad_fn()->name(), "AsStridedBackward0");
  (v * tensor({1.0, 10.0}, {.dtype = kFloat64})).sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{3, 30, 0, 0}));
}

TEST(InplaceView, EarlierViewSeesAWriteThroughAnotherView) {
  // b = x * 1; v1 = b[1:3]; v2 = b[:2]; v1.mul_(2); (v2 * [1, 10]).sum() -> x.grad [1, 20, 0, 0]
  Tensor x = tensor({1.0, 2.0, 3.0, 4.0}, {.dtype = kFloat64}).requires_grad_();
  Tensor b = x * 1;
  Tensor v1 = b.narrow(0, 1, 2), v2 = b.narrow(0, 0, 2);
  v1.mul_(2);
  (v2 * tensor({1.0, 10.0}, {.dtype = kFloat64})).sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{1, 20, 0, 0}));
}

TEST(InplaceView, ViewOfAViewAndALaterOp) {
  // b = x * 1; v = b[1:]; vv = v[1:]; b[0:3].mul_(5); (vv * [1, 10]).sum() -> [0, 0, 5, 10]
  Tensor x = tensor({1.0, 2.0, 3.0, 4.0}, {.dtype = kFloat64}).requires_grad_();
  Tensor b = x * 1;
  Tensor vv = b.narrow(0, 1, 3).narrow(0, 1, 2);
  b.narrow(0, 0, 3).mul_(5);
  (vv * tensor({1.0, 10.0}, {.dtype = kFloat64})).sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{0, 0, 5, 10}));
  // b = x * 1; v = b.view(2, 2); b.add_(x); v.exp().sum() -> x.grad == 2 exp(2x)
  x.mutable_grad() = Tensor();
  Tensor b2 = x * 1;
  Tensor v = b2.view({2, 2});
  b2.add_(x);
  v.exp().sum().backward();
  const Tensor want = 2 * (2 * x.detach()).exp();
  EXPECT_TRUE(allclose(x.grad(), want)) << x.grad() << want;
}

TEST(InplaceView, ViewOfAConstantJoinsTheGraph) {
  // b = zeros(4); v = b[:2]; b[1:2].copy_(w * 2): v now requires grad; (v * [1, 10]) -> w.grad 20
  Tensor w = tensor({5.0}, {.dtype = kFloat64}).requires_grad_();
  Tensor b = zeros({4}, {.dtype = kFloat64});
  Tensor v = b.narrow(0, 0, 2);
  EXPECT_FALSE(v.requires_grad());
  b.narrow(0, 1, 1).copy_(w * 2);
  EXPECT_TRUE(v.requires_grad());
  (v * tensor({1.0, 10.0}, {.dtype = kFloat64})).sum().backward();
  EXPECT_EQ(values(w.grad()), (std::vector<double>{20}));
}

TEST(InplaceView, ViewOfALeafAfterAnOptimizerStep) {
  // W leaf; v = W[:2]; no_grad: W.add_(1); (v * [1, 10]).sum() -> W.grad == [1, 10, 0]
  Tensor W = tensor({1.0, 2.0, 3.0}, {.dtype = kFloat64}).requires_grad_();
  Tensor v = W.narrow(0, 0, 2);
  {
    NoGradGuard no_grad;
    W.add_(1);
  }
  (v * tensor({1.0, 10.0}, {.dtype = kFloat64})).sum().backward();
  EXPECT_EQ(values(W.grad()), (std::vector<double>{1, 10, 0}));
  // A view made under no_grad stays out of the graph.
  Tensor quiet;
  {
    NoGradGuard no_grad;
    quiet = W.narrow(0, 0, 2);
    W.add_(1);
  }
  NoGradGuard no_grad;  // in grad mode it may no longer be used (the next test)
  EXPECT_FALSE(quiet.requires_grad());
  EXPECT_FALSE(quiet.grad_fn());
  EXPECT_EQ(values(quiet * 2), (std::vector<double>{6, 8}));
}

// PyTorch 1.13 forbids these (its message: "A view was created in no_grad mode and its base
// or another view of its base has been modified inplace with grad mode enabled").
constexpr const char* kStaleNoGradView =
    "a view created in no_grad mode is used with grad mode enabled after its base (or another "
    "view of its base) was modified in place";

TEST(InplaceView, NoGradViewOfAWrittenBaseIsAnErrorInGradMode) {
  Tensor x = tensor({1.0, 2.0, 3.0}, {.dtype = kFloat64}).requires_grad_();
  Tensor b = x * 1;
  Tensor v;
  {
    NoGradGuard no_grad;
    v = b.narrow(0, 0, 2);
  }
  EXPECT_FALSE((v * 2).requires_grad());  // untouched base: plain data
  b.mul_(3);
  EXPECT_ERROR(v * 2, kStaleNoGradView);
  EXPECT_ERROR(v.grad_fn(), kStaleNoGradView);
  EXPECT_EQ(values(v.detach() * 2), (std::vector<double>{6, 12}));  // detach() is the way out
  {
    NoGradGuard no_grad;  // as plain data it stays usable
    EXPECT_EQ(values(v * 2), (std::vector<double>{6, 12}));
  }
  // The base written under no_grad (an optimizer step on a parameter) counts too.
  Tensor W = tensor({1.0, 2.0}, {.dtype = kFloat64}).requires_grad_();
  Tensor w;
  {
    NoGradGuard no_grad;
    w = W.narrow(0, 0, 1);
    W.add_(1);
  }
  EXPECT_ERROR(w.sum(), kStaleNoGradView);
  // A constant base that later joins the graph too; a view of the no_grad view inherits it.
  Tensor c = zeros({3}, {.dtype = kFloat64});
  Tensor u, uu;
  {
    NoGradGuard no_grad;
    u = c.narrow(0, 1, 2);
  }
  uu = u.narrow(0, 0, 1);
  c.mul_(x);
  EXPECT_ERROR(u.exp(), kStaleNoGradView);
  EXPECT_ERROR(uu.exp(), kStaleNoGradView);
}

TEST(InplaceView, WritingThroughANoGradViewInGradModeIsAnError) {
  const char* error = "a view created in no_grad mode is being modified in place with grad mode "
                      "enabled";
  Tensor W = tensor({1.0, 1.0, 1.0}, {.dtype = kFloat64}).requires_grad_();
  Tensor c = ones({3}, {.dtype = kFloat64});
  Tensor x = tensor({2.0}, {.dtype = kFloat64}).requires_grad_();
  Tensor vw, vc;
  {
    NoGradGuard no_grad;
    vw = W.narrow(0, 0, 2);
    vc = c.narrow(0, 0, 2);
  }
  EXPECT_ERROR(vw.mul_(2), error);   // its base requires grad
  EXPECT_ERROR(vc.mul_(x), error);   // the write itself would be recorded
  vc.mul_(2);                        // nothing requires grad: a plain write
  EXPECT_EQ(values(c), (std::vector<double>{2, 2, 1}));
  {
    NoGradGuard no_grad;
    vw.mul_(3);
  }
  EXPECT_EQ(values(W), (std::vector<double>{3, 3, 1}));
}

TEST(InplaceView, DetachedViewStaysDetached) {
  Tensor x = tensor({1.0, 2.0, 3.0}, {.dtype = kFloat64}).requires_grad_();
  Tensor b = x * 1;
  Tensor v = b.narrow(0, 0, 2);
  v.detach_();
  b.mul_(2);
  EXPECT_FALSE(v.requires_grad());
  EXPECT_FALSE(v.grad_fn());
}

TEST(InplaceView, ErrorsOnLeavesAndTheirViews) {
  Tensor leaf = ones({4}, {.requires_grad = true});
  EXPECT_ERROR(leaf.narrow(0, 0, 2).mul_(2),
               "a view of a leaf Variable that requires grad is being used in an in-place "
               "operation.");
  NoGradGuard g;
  leaf.narrow(0, 0, 2).mul_(2);  // allowed without grad mode
  EXPECT_EQ(values(leaf), (std::vector<double>{2, 2, 1, 1}));
}

TEST(InferenceTensors, AreMarkedAndStayOutOfAutograd) {
  Tensor t;
  {
    InferenceMode guard;
    t = ones({3}) * 2;
    EXPECT_TRUE(t.is_inference());
    t.add_(1);  // in-place is fine inside
  }
  EXPECT_TRUE(t.is_inference());
  EXPECT_FALSE(t.grad_fn());
  EXPECT_FALSE(ones({1}).is_inference());
  EXPECT_ERROR(t.add_(1),
               "Inplace update to inference tensor outside InferenceMode is not allowed");
  EXPECT_ERROR(t.requires_grad_(),
               "Setting requires_grad=True on inference tensor outside InferenceMode");
  Tensor x = ones({3}, {.requires_grad = true});
  EXPECT_ERROR((x * t).sum().backward(), "Inference tensors cannot be saved for backward");
  EXPECT_NO_THROW((x + t).sum().backward());  // add saves nothing
}

}  // namespace
}  // namespace ember::gradtest
