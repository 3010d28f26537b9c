// The CUDA class-index loss kernels (src/backend/cuda/loss_body.cuh) run by their CPU emulation
// over launches planned as the device's are (loss_plan.cpp), against the CPU backend's kernels,
// without a GPU: cross_entropy and nll_loss, forward and backward, with and without class
// weights, ignore_index and label smoothing, every reduction, rows (S = 1) and positions S apart,
// class counts that leave threads idle, in float32 and float64; and the bad-target error.
//
// Tolerances: the kernels sum a position's classes in a block's order and all positions in
// another, each within the bound of cuda_bounds.h. The bounds below carry that through each
// formula, with the log-sum-exp off by (depth + 2) eps (1 + |lse|), which moves exp(x - lse) by
// that relatively.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "backend/cuda/emulation.h"
#include "backend/cuda/loss_plan.h"
#include "cuda_bounds.h"
#include "test_support.h"

namespace ember::cuda {
namespace {

using namespace test_bounds;

using backend::LossReduction;

const backend::LossKernels& cpu() { return backend::backend_for(kCPU)->loss; }

struct Shape {
  int64_t N, C, S;
};

struct Case {
  Shape shape;
  Dtype dtype;
  bool weighted, logits;
  int64_t ignore;  // a class (its targets ignored) or -100 (none)
  double ls;
  LossReduction reduction;

  std::string name() const {
    return std::string(dtype_name(dtype)) + " N" + std::to_string(shape.N) + " C" +
           std::to_string(shape.C) + " S" + std::to_string(shape.S) + (weighted ? " w" : "") +
           (logits ? " ce" : " nll") + " ignore " + std::to_string(ignore) + " ls " +
           std::to_string(ls) + " red " + std::to_string(int(reduction));
  }
};

/// Every combination over (6, 10, 1) rows and (3, 37, 5) positions (37 classes: 64 threads,
/// 27 idle).
std::vector<Case> cases() {
  std::vector<Case> all;
  for (const Shape s : {Shape{6, 10, 1}, Shape{3, 37, 5}})
    for (const Dtype dtype : {kFloat32, kFloat64})
      for (const bool weighted : {false, true})
        for (const bool logits : {true, false})
          for (const int64_t ignore : {int64_t(-100), int64_t(2)})
            for (const double ls : {0.0, 0.1})
              for (const LossReduction r :
                   {LossReduction::None, LossReduction::Mean, LossReduction::Sum})
                all.push_back({s, dtype, weighted, logits, ignore, logits ? ls : 0.0, r});
  return all;
}

/// A case's operands: logits (or log-probabilities for nll) in [-4, 4], targets covering every
/// class with repeats, positive weights.
struct Operands {
  Tensor x, target, weight;
  explicit Operands(const Case& c) {
    const auto [N, C, S] = c.shape;
    x = ((arange(N * C * S, {.dtype = kFloat64}) * 0.71).sin() * 4).reshape({N, C, S});
    if (!c.logits) x = x.log_softmax(1);
    x = x.to(c.dtype);
    target = arange(N * S, {.dtype = kInt64}) * 7 % C;
    if (c.weighted) weight = (arange(C, {.dtype = kFloat64}) * 1.3).sin().abs().to(c.dtype) + 0.2;
  }
  backend::ClassLossCall call(const Case& c) const {
    return {"cross_entropy", x, target, weight, c.ignore, c.ls, c.logits, c.reduction};
  }
};

/// Per-position magnitudes in float64, (N, 1, S): lse (0 for nll) and w[t] (0 where ignored).
struct Positions {
  Tensor lse, wt, xt;
  Positions(const Case& c, const Operands& o) {
    const auto [N, C, S] = c.shape;
    const Tensor x = f64(o.x);
    lse = c.logits ? x.logsumexp(1, true) : zeros({N, 1, S}, {.dtype = kFloat64});
    const Tensor t = o.target.reshape({N, 1, S});
    xt = x.gather(1, t);
    wt = o.weight.defined() ? f64(o.weight).index_select(0, o.target).reshape({N, 1, S})
                            : ones({N, 1, S}, {.dtype = kFloat64});
    wt = wt * t.ne(c.ignore).to(kFloat64);
  }
};

TEST(CudaLossPlan, ForwardMatchesTheCpuForEveryOption) {
  for (const Case& c : cases()) {
    const Operands o(c);
    const auto [N, C, S] = c.shape;
    const bool none = c.reduction == LossReduction::None;
    const Tensor want =
        empty(none ? std::vector<int64_t>{N * S} : std::vector<int64_t>{}, {.dtype = c.dtype});
    const Tensor got = empty_like(want);
    cpu().class_loss(o.call(c), want);
    std::vector<char> terms(size_t(class_loss_scratch(o.call(c))) * 8);
    int64_t bad[2] = {0, 0};
    const auto passes = plan_class_loss_launches(o.call(c), got, terms.data(), bad);
    kernels::emulate_class_loss(passes[0]);
    if (!none) kernels::emulate_class_loss(passes[1]);
    EXPECT_EQ(bad[0], 0);

    const Positions p(c, o);
    const double e = acc_eps(c.dtype), kc = depth(C, passes[0].threads), kr = depth(N * S, 256);
    const Tensor w = o.weight.defined() ? f64(o.weight).reshape({1, C, 1})
                                        : ones({1, C, 1}, {.dtype = kFloat64});
    // Each position's terms, their magnitude and error bound.
    const Tensor smooth = (w * (f64(o.x).abs() + p.lse.abs())).sum(1, true) * (c.ls / C);
    const Tensor mag = (p.wt * (p.xt.abs() + p.lse.abs()) + smooth * p.wt.ne(0)).flatten();
    const Tensor tol_r = (mag + p.wt.flatten() + c.ls) * ((kc + 4) * e);
    Tensor tol;
    if (none) {
      tol = tol_r;
    } else {
      tol = tol_r.sum() + mag.sum() * (kr * e);
      if (c.reduction == LossReduction::Mean)
        tol = tol / p.wt.sum() + f64(want).abs() * ((kr + 2) * e);
    }
    expect_within(got, want, tol, c.name());
  }
}

TEST(CudaLossPlan, BackwardMatchesTheCpuForEveryOption) {
  for (const Case& c : cases()) {
    const Operands o(c);
    const auto [N, C, S] = c.shape;
    const bool none = c.reduction == LossReduction::None;
    const Tensor grad = none ? (arange(N * S, {.dtype = kFloat64}) * 0.3).cos().to(c.dtype)
                             : full({}, 0.7, {.dtype = c.dtype});
    const Tensor want = empty({N, C, S}, {.dtype = c.dtype}), got = empty_like(want);
    cpu().class_loss_backward(o.call(c), want, grad);
    std::vector<char> sums(16);
    int64_t bad[2] = {0, 0};
    for (const auto& pass :
         plan_class_loss_backward_launches(o.call(c), got, grad, sums.data(), bad))
      kernels::emulate_class_loss(pass);
    EXPECT_EQ(bad[0], 0);

    // grad_c = p_c (a + b Σw) - b w_c - [c = t] a per position (loss_body.cuh); each factor off
    // by the bounds of the file comment, "mean"'s scale by its sum of kR weights.
    const Positions p(c, o);
    const double e = acc_eps(c.dtype), kc = depth(C, 64), kr = depth(N * S, 256);
    const Tensor gs =
        none ? f64(grad).reshape({N, 1, S}) : full({N, 1, S}, 0.7, {.dtype = kFloat64});
    const Tensor scale = c.reduction == LossReduction::Mean ? gs / p.wt.sum() : gs;
    const Tensor w = o.weight.defined() ? f64(o.weight).reshape({1, C, 1})
                                        : ones({1, C, 1}, {.dtype = kFloat64});
    const Tensor a = (1 - c.ls) * p.wt * scale, b = c.ls / C * scale * p.wt.ne(0);
    const Tensor pa = a + b * w.sum();
    const Tensor prob = c.logits ? (f64(o.x) - p.lse).exp() : zeros({N, C, S}, {.dtype = kFloat64});
    const Tensor x_mag = 1 + f64(o.x).abs() + p.lse.abs();
    const Tensor tol = (prob * pa.abs() + w * b.abs() + a.abs()) * x_mag * ((kc + kr + 8) * e);
    expect_within(got, want, tol, c.name());
  }
}

// The first target out of range, in position order (blocks run in order in the emulation; on
// the device any one of them), raises the CPU's words; an ignored target is never checked.
TEST(CudaLossPlan, ATargetOutOfRangeIsRecordedAndRaisesTheCpusError) {
  const Case c{{6, 10, 1}, kFloat32, false, true, -100, 0, LossReduction::Mean};
  Operands o(c);
  o.target.select(0, 2).fill_(10);
  o.target.select(0, 4).fill_(-3);
  const Tensor out = empty({});
  std::vector<char> terms(size_t(class_loss_scratch(o.call(c))) * 4);
  int64_t bad[2] = {0, 0};
  kernels::emulate_class_loss(plan_class_loss_launches(o.call(c), out, terms.data(), bad)[0]);
  EXPECT_EQ(bad[0], 1);
  EXPECT_EQ(bad[1], 10);
  EXPECT_ERROR(raise_bad_target("cross_entropy", bad), "Target 10 is out of bounds.");
  EXPECT_ERROR(cpu().class_loss(o.call(c), out), "Target 10 is out of bounds.");

  o.target.select(0, 2).fill_(-100);  // ignored
  o.target.select(0, 4).fill_(-100);
  int64_t none[2] = {0, 0};
  kernels::emulate_class_loss(plan_class_loss_launches(o.call(c), out, terms.data(), none)[0]);
  EXPECT_EQ(none[0], 0);
}

}  // namespace
}  // namespace ember::cuda
