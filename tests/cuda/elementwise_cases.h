// The elementwise ops a device's kernels are compared with the CPU's on, through the public ops
// (the op table's device samples, ops/op_table.h), and the comparison:
// tests/cuda/elementwise_test.cpp runs them on a GPU, and tests/backend/cuda_emulation_test.cpp
// on a fake device whose kernels are the CUDA kernels' CPU emulation. Each op takes (any values, positive values): the unary math, binary arithmetic,
// comparisons, predicates, rounding, activations and pointwise losses in the floating dtypes;
// the integer and bool ones, exactly, in int32, int64 and bool.
#pragma once

#include <ember/ember.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "ops/op_table.h"

namespace ember::test {

using OpCase = DeviceCase;

namespace F = ember::nn::functional;

/// The floating cases: every op table row's `device` samples (ops/op_table.h), and the pointwise
/// losses (nn, not rows of the elementwise table).
inline const std::vector<OpCase>& floating_cases() {
  static const std::vector<OpCase> all = [] {
    std::vector<OpCase> cases = device_cases();
    cases.insert(cases.end(), {
        {"mse_loss", [](const Tensor& a, const Tensor& p) { return F::mse_loss(a, p, {"none"}); }},
        {"smooth_l1_loss",
         [](const Tensor& a, const Tensor& p) { return F::smooth_l1_loss(a, p, {"none"}); }},
        {"huber_loss",
         [](const Tensor& a, const Tensor& p) { return F::huber_loss(a, p, {"none"}); }},
        {"binary_cross_entropy",
         [](const Tensor& a, const Tensor& p) {
           return F::binary_cross_entropy(p / 4, sigmoid(a), {.reduction = "none"});
         },
         true},
        {"binary_cross_entropy_with_logits",
         [](const Tensor& a, const Tensor& p) {
           return F::binary_cross_entropy_with_logits(a, p / 4, {.reduction = "none"});
         }},
    });
    return cases;
  }();
  return all;
}

/// The integer and bool cases: every op table row's `device_int` samples (ops/op_table.h), on
/// (integers in [-30, 30], divisors in [1, 31]).
inline std::vector<OpCase> integer_cases(Dtype dtype) { return device_int_cases(dtype); }

/// (33, 65) values in [-3, 3) and in [0.5, 3.5), deterministic, in `dtype`.
inline Tensor any_values(Dtype dtype) {
  return (arange(33 * 65, {.dtype = kFloat64}).reshape({33, 65}) * (6.0 / (33 * 65)) - 3).to(dtype);
}
inline Tensor positive_values(Dtype dtype) {
  return (arange(33 * 65, {.dtype = kFloat64}).reshape({33, 65}).flip({1}) * (3.0 / (33 * 65)) +
          0.5).to(dtype);
}

/// The device under test: its device, how a CPU tensor gets there and how a result comes back,
/// and whether the ops can copy to the host themselves (a fake device's memory cannot).
struct DeviceUnderTest {
  Device device;
  std::function<Tensor(const Tensor&)> to_device, to_host;
  bool copies_to_host = true;
};

/// Every floating case in `dtype` on operands laid out by `layout` (applied on each side) against
/// the CPU, within the dtype's rounding.
inline void expect_floating_ops_match_cpu(const DeviceUnderTest& d, Dtype dtype,
                                          const std::function<Tensor(const Tensor&)>& layout,
                                          const char* layout_name) {
  const double rtol = dtype == kFloat64   ? 1e-12
                      : dtype == kFloat32 ? 1e-5
                      : dtype == kFloat16 ? 2e-3
                                          : 1.6e-2;
  const Tensor a = any_values(dtype), p = positive_values(dtype);
  const Tensor da = d.to_device(a), dp = d.to_device(p);
  for (const OpCase& c : floating_cases()) {
    if (c.reads_back && !d.copies_to_host) continue;
    const Tensor want = c.f(layout(a), layout(p));
    const Tensor got = c.f(layout(da), layout(dp));
    ASSERT_EQ(got.device(), d.device) << c.name;
    ASSERT_EQ(got.dtype(), want.dtype()) << c.name;
    ASSERT_EQ(got.sizes(), want.sizes()) << c.name;
    EXPECT_TRUE(allclose(d.to_host(got).to(kFloat64), want.to(kFloat64), rtol, rtol * 1e-2,
                         /*equal_nan=*/true))
        << c.name << " in " << dtype << " on " << layout_name << " operands";
  }
}

/// Every integer case in `dtype` (int32, int64 or bool), exactly, on plain and transposed operands.
inline void expect_integer_ops_match_cpu(const DeviceUnderTest& d, Dtype dtype) {
  const auto ints = [&](const Tensor& v) { return dtype == kBool ? v > 0 : v.to(dtype); };
  const Tensor a = ints((any_values(kFloat64) * 10).round());
  const Tensor b = ints((positive_values(kFloat64) * 10).round() - 4);
  const Tensor da = d.to_device(a), db = d.to_device(b);
  for (const OpCase& c : integer_cases(dtype)) {
    EXPECT_TRUE(d.to_host(c.f(da, db)).equal(c.f(a, b))) << c.name << " in " << dtype;
    EXPECT_TRUE(d.to_host(c.f(da.t(), db.t())).equal(c.f(a.t(), b.t())))
        << c.name << " in " << dtype << " transposed";
  }
}

}  // namespace ember::test
