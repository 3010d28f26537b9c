// The backward engine on hand-built graphs (backward formulas defined here, so the engine is
// tested apart from the ops'): the reference's worked example, accumulation, retain_graph,
// grad(), hooks, retain_grad, saved-tensor version checks, grad modes and anomaly detection.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "autograd/final_callbacks.h"
#include "autograd/function.h"
#include "ember/ember.h"

namespace ember::autograd {
namespace {

// Forward functions that record one node each through autograd::Recorder, the path every op
// takes, with the backward formulas written here (the values are computed without grad: an
// active Recorder turns grad mode off until record()).
Tensor rec_mul(const Tensor& a, const Tensor& b) {
  Recorder rec("mul", {&a, &b});
  Tensor out = a * b;
  if (rec)
    rec.record("MulBackward0", {out}, {a, b}, [](const Grads& g, const Saved& s) {
      return TensorList{g[0] * s[1], g[0] * s[0]};
    });
  return out;
}
Tensor rec_add(const Tensor& a, const Tensor& b) {
  Recorder rec("add", {&a, &b});
  Tensor out = a + b;
  if (rec)
    rec.record("AddBackward0", {out}, {}, [](const Grads& g, const Saved&) {
      return TensorList{g[0], g[0]};
    });
  return out;
}
Tensor rec_square(const Tensor& a) {  // out = base^2
  Recorder rec("square", {&a});
  Tensor out = a * a;
  if (rec)
    rec.record("PowBackward0", {out}, {a}, [](const Grads& g, const Saved& s) {
      return TensorList{g[0] * 2.0 * s[0]};
    });
  return out;
}
Tensor rec_log(const Tensor& a) {  // produces inf gradients at 0
  Recorder rec("log", {&a});
  Tensor out = ember::log(a);
  if (rec)
    rec.record("LogBackward0", {out}, {a}, [](const Grads& g, const Saved& s) {
      return TensorList{g[0] / s[0]};
    });
  return out;
}

double value(const Tensor& t) { return t.item<double>(); }

TEST(Engine, ReferenceWorkedExample) {
  Tensor x = tensor(2.0, {.requires_grad = true}), y = tensor(3.0, {.requires_grad = true});
  Tensor a = rec_mul(x, y), b = rec_add(a, x), c = rec_square(b);
  EXPECT_EQ(c.grad_fn()->name(), "PowBackward0");
  EXPECT_EQ(a.grad_fn()->name(), "MulBackward0");
  EXPECT_EQ(b.grad_fn()->next_functions()[0].function->name(), "MulBackward0");
  EXPECT_EQ(b.grad_fn()->next_functions()[1].function->name(), "AccumulateGrad");
  EXPECT_TRUE(x.is_leaf());
  EXPECT_FALSE(c.is_leaf());
  EXPECT_TRUE(c.requires_grad());
  c.backward();
  EXPECT_EQ(value(x.grad()), 64);
  EXPECT_EQ(value(y.grad()), 32);
  try {
    c.backward();
    FAIL() << "second backward must fail";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Trying to backward through the graph a second time"),
              std::string::npos)
        << e.what();
  }
}

TEST(Engine, RetainGraphAllowsASecondPassAndGradientsAccumulate) {
  Tensor x = tensor(2.0, {.requires_grad = true}), y = tensor(3.0, {.requires_grad = true});
  Tensor c = rec_square(rec_add(rec_mul(x, y), x));
  c.backward({.retain_graph = true});
  c.backward();
  EXPECT_EQ(value(x.grad()), 128);
  EXPECT_EQ(value(y.grad()), 64);
  x.mutable_grad() = Tensor();
  EXPECT_FALSE(x.grad().defined());
}

// sum's backward expands one value to the input's shape: the first gradient a leaf receives is
// that broadcast view, which .grad must not keep (the second pass adds into it in place).
TEST(Engine, ABroadcastFirstGradientIsCopiedBeforeAccumulating) {
  Tensor x = randn({3}, {.requires_grad = true});
  Tensor s = x.sum();  // saves nothing: a second backward needs no retain_graph
  s.backward();
  EXPECT_TRUE(x.grad().is_contiguous());
  s.backward();
  EXPECT_EQ(x.grad().tolist<float>(), (std::vector<float>{2, 2, 2}));
}

TEST(Engine, GradDoesNotTouchLeafGrads) {
  Tensor x = tensor(2.0, {.requires_grad = true}), y = tensor(3.0, {.requires_grad = true});
  Tensor c = rec_square(rec_add(rec_mul(x, y), x));
  auto g = grad({c}, {x, y});
  EXPECT_EQ(value(g[0]), 64);
  EXPECT_EQ(value(g[1]), 32);
  EXPECT_FALSE(x.grad().defined());
}

TEST(Engine, UnusedInputsNeedAllowUnused) {
  Tensor x = tensor(2.0, {.requires_grad = true}), z = tensor(1.0, {.requires_grad = true});
  Tensor c = rec_square(x);
  EXPECT_THROW(grad({c}, {x, z}, {.retain_graph = true}), Error);
  auto g = grad({c}, {x, z}, {.allow_unused = true});
  EXPECT_EQ(value(g[0]), 4);
  EXPECT_FALSE(g[1].defined());
}

TEST(Engine, ImplicitGradientOnlyForScalars) {
  Tensor x = ones({3}, {.requires_grad = true});
  Tensor y = rec_mul(x, x);
  try {
    y.backward();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("grad can be implicitly created only for scalar outputs"),
              std::string::npos);
  }
  y.backward({.gradient = tensor({1.0, 2.0, 3.0})});
  EXPECT_TRUE(x.grad().equal(tensor({2.0, 4.0, 6.0})));
}

TEST(Engine, NoGradAndUntrackedTensors) {
  Tensor x = tensor(2.0, {.requires_grad = true});
  {
    NoGradGuard g;
    EXPECT_FALSE(is_grad_enabled());
    Tensor y = rec_mul(x, x);
    EXPECT_FALSE(y.requires_grad());
    EXPECT_EQ(y.grad_fn(), nullptr);
    {
      EnableGradGuard e;
      EXPECT_TRUE(rec_mul(x, x).requires_grad());
    }
  }
  EXPECT_TRUE(is_grad_enabled());
  Tensor plain = tensor(1.0);
  try {
    rec_mul(plain, plain).backward();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not require grad and does not have a grad_fn"),
              std::string::npos);
  }
  EXPECT_THROW(tensor({1, 2}).requires_grad_(), Error);  // integer tensors never require grad
}

TEST(Engine, RetainGradAndHooks) {
  Tensor x = tensor(2.0, {.requires_grad = true});
  Tensor h = rec_mul(x, tensor(3.0));
  h.retain_grad();
  EXPECT_TRUE(h.retains_grad());
  int calls = 0;
  HookHandle handle = h.register_hook([&](const Tensor& g) {
    ++calls;
    return g * 10.0;  // replaces the gradient flowing on
  });
  Tensor c = rec_square(h);
  c.backward({.retain_graph = true});
  EXPECT_EQ(calls, 1);
  // As in PyTorch 1.13, hooks run in registration order: retain_grad (registered first) keeps
  // the gradient before the user hook multiplies it by 10 (h.grad 12, x.grad 360).
  EXPECT_EQ(value(h.grad()), 12);
  EXPECT_EQ(value(x.grad()), 360);
  handle.remove();
  c.backward();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(value(h.grad()), 24);  // retained non-leaf gradients accumulate too
  EXPECT_EQ(value(x.grad()), 396);
}

TEST(Engine, LeafHooksAndPostAccumulateHooks) {
  Tensor x = tensor(2.0, {.requires_grad = true});
  std::vector<double> seen;
  x.register_hook([&](const Tensor& g) {
    seen.push_back(value(g));
    return Tensor();
  });
  x.register_post_accumulate_grad_hook([&](const Tensor& t) { seen.push_back(value(t.grad())); });
  rec_square(x).backward();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], 4);
  EXPECT_EQ(seen[1], 4);
}

TEST(Engine, InPlaceModificationOfASavedTensorIsDetected) {
  Tensor x = ones({3}, {.requires_grad = true});
  Tensor y = rec_mul(x, tensor(2.0));
  Tensor z = rec_square(y);
  {
    NoGradGuard g;
    y.add_(1.0);
  }
  try {
    z.backward({.gradient = ones({3})});
    FAIL();
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("modified by an inplace operation"), std::string::npos) << m;
    EXPECT_NE(m.find("[3]"), std::string::npos) << m;
    EXPECT_NE(m.find("PowBackward0"), std::string::npos) << m;
  }
}

TEST(Engine, InferenceTensorsCannotBeSaved) {
  Tensor t;
  {
    InferenceMode guard;
    EXPECT_FALSE(is_grad_enabled());
    t = ones({2});
  }
  EXPECT_TRUE(t.is_inference());
  Tensor x = ones({2}, {.requires_grad = true});
  EXPECT_THROW(rec_mul(x, t), Error);
}

TEST(Engine, AnomalyModeNamesTheNode) {
  Tensor x = zeros({2}, {.requires_grad = true});
  {
    DetectAnomalyGuard guard;
    Tensor y = rec_log(x);
    try {
      y.backward({.gradient = ones({2})});
      FAIL();
    } catch (const Error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("Function 'LogBackward0' returned inf values"), std::string::npos) << m;
      EXPECT_NE(m.find("created"), std::string::npos) << m;
    }
  }
  EXPECT_FALSE(is_anomaly_enabled());
  rec_log(x).backward({.gradient = ones({2})});  // off: no check, inf flows into .grad
  EXPECT_TRUE(std::isinf(x.grad().index({0}).item<double>()));
}

// DDP's reducer finishes its buckets from a callback queued by a gradient hook: it must run
// after every node of the pass (after both leaves' gradients, whichever comes last), in order.
TEST(Engine, QueuedCallbacksRunOnceThePassHasFinishedInOrder) {
  Tensor x = tensor(2.0, {.requires_grad = true}), y = tensor(3.0, {.requires_grad = true});
  std::vector<std::string> events;
  auto hx = x.register_post_accumulate_grad_hook([&](const Tensor&) {
    events.push_back("x");
    queue_callback([&] {
      events.push_back("first callback");
      queue_callback([&] { events.push_back("queued by a callback"); });
    });
    queue_callback([&] { events.push_back("second callback"); });
  });
  auto hy = y.register_post_accumulate_grad_hook([&](const Tensor&) { events.push_back("y"); });
  (x * 2.0 + (y * x).exp()).backward();
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(std::set<std::string>(events.begin(), events.begin() + 2),
            (std::set<std::string>{"x", "y"}));
  EXPECT_EQ(std::vector<std::string>(events.begin() + 2, events.end()),
            (std::vector<std::string>{"first callback", "second callback",
                                      "queued by a callback"}));
  events.clear();
  (x * 3.0).backward();  // callbacks belong to one pass: none are left over
  EXPECT_EQ(events, (std::vector<std::string>{"x", "first callback", "second callback",
                                              "queued by a callback"}));
  EXPECT_THROW(queue_callback([] {}), Error);
}

}  // namespace
}  // namespace ember::autograd
