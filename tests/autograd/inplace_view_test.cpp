// In-place ops through views rewrite the base's history (Note [In-place on views]), inference
// tensors, and the errors PyTorch raises for in-place ops on leaves and their views.
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
