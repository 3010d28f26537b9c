// The table-driven gradient harness (PyTorch's OpInfo idea): each row builds float64 inputs,
// runs an op, checks the output's grad_fn name, then gradcheck and (optionally) gradgradcheck.
// One test file per op family defines a table and instantiates the suite:
//
//   const GradCase kCases[] = {
//     {"mul_broadcast", "MulBackward0", [] { return In{x({3, 4}), x({4})}; },
//      [](const In& t) { return t[0] * t[1]; }},
//   };
//   EMBER_GRAD_TABLE(Binary, kCases);
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace ember::gradtest {

using In = std::vector<Tensor>;

struct GradCase {
  std::string name;   // test name (letters, digits, underscores)
  std::string node;   // expected grad_fn()->name() of the first output; "" skips the check
  std::function<In()> inputs;
  std::function<Tensor(const In&)> fn;
  bool gradgrad = true;  // also check the backward's own gradient (create_graph)
  autograd::GradcheckOptions options = {};
};

/// A float64 leaf that requires grad, values uniform in [lo, hi) from a fixed seed per call.
inline Tensor x(IntArrayRef shape, double lo = -2, double hi = 2) {
  static Generator gen(1234);
  Tensor t = rand(shape, {.dtype = kFloat64, .generator = &gen}) * (hi - lo) + lo;
  return t.requires_grad_();
}
/// Positive values (log, sqrt, division by it).
inline Tensor pos(IntArrayRef shape) { return x(shape, 0.5, 2.0); }
/// A transposed (non-contiguous) leaf of shape `shape` (2-d).
inline Tensor xt(IntArrayRef shape) {
  Tensor base = x({shape[1], shape[0]}).detach();
  return base.t().requires_grad_();
}
/// The same without requires_grad: a constant operand.
inline Tensor c(IntArrayRef shape, double lo = -2, double hi = 2) {
  return x(shape, lo, hi).detach();
}

inline void PrintTo(const GradCase& gc, std::ostream* os) { *os << gc.name; }

class GradTable : public testing::TestWithParam<GradCase> {};

inline void run_case(const GradCase& gc) {
  const In in = gc.inputs();
  const Tensor out = gc.fn(in);
  if (!gc.node.empty()) {
    ASSERT_TRUE(out.grad_fn()) << gc.name << ": no grad_fn";
    EXPECT_EQ(out.grad_fn()->name(), gc.node) << gc.name;
  }
  try {
    autograd::gradcheck(gc.fn, in, gc.options);
  } catch (const Error& e) {
    ADD_FAILURE() << gc.name << " gradcheck: " << e.what();
    return;
  }
  if (gc.gradgrad) {
    // Ops with a fused first-order kernel build a differentiable form under create_graph (conv,
    // batch norm, cross_entropy): both must give the same gradients, not merely consistent ones.
    std::vector<Tensor> diff_in;
    for (const Tensor& t : in)
      if (t.requires_grad()) diff_in.push_back(t);
    const Tensor seed = randn(out.sizes(), {.dtype = out.dtype()});
    const auto plain = autograd::grad({gc.fn(in)}, diff_in, {.grad_outputs = {seed},
                                                             .allow_unused = true});
    const auto graphed = autograd::grad({gc.fn(in)}, diff_in, {.grad_outputs = {seed},
                                                               .create_graph = true,
                                                               .allow_unused = true});
    for (size_t i = 0; i < diff_in.size(); ++i) {
      ASSERT_EQ(plain[i].defined(), graphed[i].defined()) << gc.name << " input " << i;
      if (plain[i].defined()) {
        EXPECT_TRUE(allclose(graphed[i], plain[i], 1e-9, 1e-12))
            << gc.name << ": input " << i << "'s gradient with create_graph differs:\n"
            << graphed[i] << "\nwithout:\n" << plain[i];
      }
    }
    try {
      autograd::gradgradcheck(gc.fn, in, gc.options);
    } catch (const Error& e) {
      ADD_FAILURE() << gc.name << " gradgradcheck: " << e.what();
    }
  }
}

}  // namespace ember::gradtest

#define EMBER_GRAD_TABLE(Suite, cases)                                                    \
  TEST_P(GradTable, GradcheckPasses) {                                                    \
    try {                                                                                 \
      ::ember::gradtest::run_case(GetParam());                                            \
    } catch (const ::ember::Error& e) {                                                   \
      ADD_FAILURE() << GetParam().name << ": " << e.what();                              \
    }                                                                                     \
  }                                                                                       \
  INSTANTIATE_TEST_SUITE_P(Suite, GradTable, testing::ValuesIn(cases),                    \
                           [](const auto& info) { return info.param.name; })
