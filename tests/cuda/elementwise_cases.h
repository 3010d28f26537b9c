// The elementwise ops a device's kernels are compared with the CPU's on, through the public ops,
// and the comparison: tests/cuda/elementwise_test.cpp runs them on a GPU, and
// tests/backend/cuda_emulation_test.cpp on a fake device whose kernels are the CUDA kernels'
// CPU emulation. Each op takes (any values, positive values): the unary math, binary arithmetic,
// comparisons, predicates, rounding, activations and pointwise losses in the floating dtypes;
// the integer and bool ones, exactly, in int32, int64 and bool.
#pragma once

#include <ember/ember.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace ember::test {

struct OpCase {
  const char* name;
  std::function<Tensor(const Tensor&, const Tensor&)> f;  // (any values, positive values)
  bool reads_back = false;  // the op copies a value to the host (binary_cross_entropy's check)
};

namespace F = ember::nn::functional;

inline const std::vector<OpCase>& floating_cases() {
  static const std::vector<OpCase> all = {
      {"neg", [](const Tensor& a, const Tensor&) { return neg(a); }},
      {"abs", [](const Tensor& a, const Tensor&) { return abs(a); }},
      {"sqrt", [](const Tensor&, const Tensor& p) { return sqrt(p); }},
      {"rsqrt", [](const Tensor&, const Tensor& p) { return rsqrt(p); }},
      {"square", [](const Tensor& a, const Tensor&) { return square(a); }},
      {"reciprocal", [](const Tensor&, const Tensor& p) { return reciprocal(p); }},
      {"exp", [](const Tensor& a, const Tensor&) { return exp(a); }},
      {"log", [](const Tensor&, const Tensor& p) { return log(p); }},
      {"sin", [](const Tensor& a, const Tensor&) { return sin(a); }},
      {"cos", [](const Tensor& a, const Tensor&) { return cos(a); }},
      {"tanh", [](const Tensor& a, const Tensor&) { return tanh(a); }},
      {"sigmoid", [](const Tensor& a, const Tensor&) { return sigmoid(a); }},
      {"relu", [](const Tensor& a, const Tensor&) { return relu(a); }},
      {"add", [](const Tensor& a, const Tensor& p) { return add(a, p, 2); }},
      {"sub", [](const Tensor& a, const Tensor& p) { return sub(a, p, 0.5); }},
      {"mul", [](const Tensor& a, const Tensor& p) { return mul(a, p); }},
      {"div", [](const Tensor& a, const Tensor& p) { return div(a, p); }},
      {"maximum", [](const Tensor& a, const Tensor& p) { return maximum(a, p); }},
      {"minimum", [](const Tensor& a, const Tensor& p) { return minimum(a, p); }},
      {"sign", [](const Tensor& a, const Tensor&) { return sign(a); }},
      {"exp2", [](const Tensor& a, const Tensor&) { return exp2(a); }},
      {"expm1", [](const Tensor& a, const Tensor&) { return expm1(a); }},
      {"log2", [](const Tensor&, const Tensor& p) { return log2(p); }},
      {"log10", [](const Tensor&, const Tensor& p) { return log10(p); }},
      {"log1p", [](const Tensor&, const Tensor& p) { return log1p(p); }},
      {"tan", [](const Tensor& a, const Tensor&) { return tan(a * 0.4); }},
      {"asin", [](const Tensor& a, const Tensor&) { return asin(a * 0.3); }},
      {"acos", [](const Tensor& a, const Tensor&) { return acos(a * 0.3); }},
      {"atan", [](const Tensor& a, const Tensor&) { return atan(a); }},
      {"sinh", [](const Tensor& a, const Tensor&) { return sinh(a); }},
      {"cosh", [](const Tensor& a, const Tensor&) { return cosh(a); }},
      {"erf", [](const Tensor& a, const Tensor&) { return erf(a); }},
      {"erfc", [](const Tensor& a, const Tensor&) { return erfc(a); }},
      {"floor", [](const Tensor& a, const Tensor&) { return floor(a * 2); }},
      {"ceil", [](const Tensor& a, const Tensor&) { return ceil(a * 2); }},
      {"trunc", [](const Tensor& a, const Tensor&) { return trunc(a * 2); }},
      {"round", [](const Tensor& a, const Tensor&) { return round(a * 2); }},
      {"round_decimals", [](const Tensor& a, const Tensor&) { return round(a, 1); }},
      {"frac", [](const Tensor& a, const Tensor&) { return frac(a * 2); }},
      {"clamp", [](const Tensor& a, const Tensor&) { return clamp(a, -1.5, 2); }},
      {"clamp_tensor", [](const Tensor& a, const Tensor& p) { return clamp(a, -p, p); }},
      {"nan_to_num", [](const Tensor& a, const Tensor& p) { return nan_to_num(a / (p - 1.5)); }},
      {"floor_divide", [](const Tensor& a, const Tensor& p) { return floor_divide(a, p); }},
      {"div_trunc", [](const Tensor& a, const Tensor& p) { return div(a, p, {"trunc"}); }},
      {"remainder", [](const Tensor& a, const Tensor& p) { return remainder(a, p); }},
      {"fmod", [](const Tensor& a, const Tensor& p) { return fmod(a, p); }},
      {"pow", [](const Tensor& a, const Tensor& p) { return pow(p, a); }},
      {"pow_scalar", [](const Tensor& a, const Tensor&) { return pow(a, 3); }},
      {"pow_sqrt", [](const Tensor&, const Tensor& p) { return pow(p, 0.5); }},
      {"pow_fraction", [](const Tensor&, const Tensor& p) { return pow(p, 1.7); }},
      {"atan2", [](const Tensor& a, const Tensor& p) { return atan2(a, p - 2); }},
      {"fmax", [](const Tensor& a, const Tensor& p) { return fmax(a, p); }},
      {"fmin", [](const Tensor& a, const Tensor& p) { return fmin(a, p); }},
      {"lerp", [](const Tensor& a, const Tensor& p) { return lerp(a, p, p - 2); }},
      {"lerp_scalar", [](const Tensor& a, const Tensor& p) { return lerp(a, p, 0.75); }},
      {"addcmul", [](const Tensor& a, const Tensor& p) { return addcmul(a, p, a, 0.5); }},
      {"addcdiv", [](const Tensor& a, const Tensor& p) { return addcdiv(a, a, p, 0.5); }},
      {"hypot", [](const Tensor& a, const Tensor& p) { return hypot(a, p); }},
      {"xlogy", [](const Tensor& a, const Tensor& p) { return xlogy(a, p); }},
      {"eq", [](const Tensor& a, const Tensor& p) { return eq(round(a), round(p)); }},
      {"ne", [](const Tensor& a, const Tensor& p) { return ne(round(a), round(p)); }},
      {"lt", [](const Tensor& a, const Tensor& p) { return lt(a, p); }},
      {"le", [](const Tensor& a, const Tensor& p) { return le(a, p); }},
      {"gt", [](const Tensor& a, const Tensor&) { return a > 0; }},
      {"ge", [](const Tensor& a, const Tensor& p) { return ge(a, p); }},
      {"logical_and", [](const Tensor& a, const Tensor& p) { return logical_and(a > 0, p > 2); }},
      {"logical_or", [](const Tensor& a, const Tensor& p) { return logical_or(a > 0, p > 2); }},
      {"logical_xor", [](const Tensor& a, const Tensor& p) { return logical_xor(a > 0, p > 2); }},
      {"logical_not", [](const Tensor& a, const Tensor&) { return logical_not(a > 0); }},
      {"isnan", [](const Tensor& a, const Tensor&) { return isnan(log(a)); }},
      {"isinf", [](const Tensor& a, const Tensor&) { return isinf(reciprocal(round(a))); }},
      {"isfinite", [](const Tensor& a, const Tensor&) { return isfinite(log(a)); }},
      {"isclose", [](const Tensor& a, const Tensor& p) { return isclose(a, p, 0.5, 0.1); }},
      {"where", [](const Tensor& a, const Tensor& p) { return where(a > 0, a, p); }},
      {"masked_fill", [](const Tensor& a, const Tensor& p) { return a.masked_fill(p > 2, -1.5); }},
      {"logit", [](const Tensor&, const Tensor& p) { return logit(p / 4); }},
      {"logit_eps", [](const Tensor&, const Tensor& p) { return logit(p / 4, 0.2); }},
      {"leaky_relu", [](const Tensor& a, const Tensor&) { return leaky_relu(a, 0.1); }},
      // elu's exp(x) - 1 cancels near 0: the two sides' exp differ there by more than the
      // relative tolerance, so each branch is taken away from it.
      {"elu", [](const Tensor& a, const Tensor& p) { return elu(where(a > 0, a, -p)); }},
      {"selu", [](const Tensor&, const Tensor& p) { return selu(-p); }},
      {"gelu", [](const Tensor& a, const Tensor&) { return gelu(a); }},
      {"gelu_tanh", [](const Tensor& a, const Tensor&) { return gelu(a, {"tanh"}); }},
      {"silu", [](const Tensor& a, const Tensor&) { return silu(a); }},
      {"mish", [](const Tensor& a, const Tensor&) { return mish(a); }},
      {"softplus", [](const Tensor& a, const Tensor&) { return softplus(a, 2, 1); }},
      {"hardtanh", [](const Tensor& a, const Tensor&) { return hardtanh(a); }},
      {"hardsigmoid", [](const Tensor& a, const Tensor&) { return hardsigmoid(a); }},
      {"hardswish", [](const Tensor& a, const Tensor&) { return hardswish(a); }},
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
  };
  return all;
}

/// The integer and bool ops: (integers in [-30, 30], divisors in [1, 31]).
inline std::vector<OpCase> integer_cases(Dtype dtype) {
  std::vector<OpCase> ops = {
      {"eq", [](const Tensor& x, const Tensor& y) { return eq(x, y); }},
      {"lt", [](const Tensor& x, const Tensor& y) { return lt(x, y); }},
      {"ge", [](const Tensor& x, const Tensor& y) { return ge(x, y); }},
      {"maximum", [](const Tensor& x, const Tensor& y) { return maximum(x, y); }},
      {"fmin", [](const Tensor& x, const Tensor& y) { return fmin(x, y); }},
      {"mul", [](const Tensor& x, const Tensor& y) { return mul(x, y); }},
      {"add", [](const Tensor& x, const Tensor& y) { return add(x, y); }},
      {"bitwise_and", [](const Tensor& x, const Tensor& y) { return bitwise_and(x, y); }},
      {"bitwise_xor", [](const Tensor& x, const Tensor& y) { return bitwise_xor(x, y); }},
      {"bitwise_not", [](const Tensor& x, const Tensor&) { return bitwise_not(x); }},
      {"isnan", [](const Tensor& x, const Tensor&) { return isnan(x); }},
      {"where", [](const Tensor& x, const Tensor& y) { return where(x > y, x, y); }},
      {"sign", [](const Tensor& x, const Tensor&) { return sign(x); }},
  };
  if (dtype != kBool) {
    ops.insert(ops.end(), {
        {"sub", [](const Tensor& x, const Tensor& y) { return sub(x, y, 3); }},
        {"abs", [](const Tensor& x, const Tensor&) { return abs(x); }},
        {"neg", [](const Tensor& x, const Tensor&) { return neg(x); }},
        {"floor_divide", [](const Tensor& x, const Tensor& y) { return floor_divide(x, y); }},
        {"remainder", [](const Tensor& x, const Tensor& y) { return remainder(x, y); }},
        {"fmod", [](const Tensor& x, const Tensor& y) { return fmod(x, y); }},
        {"div_trunc", [](const Tensor& x, const Tensor& y) { return div(x, y, {"trunc"}); }},
        {"pow", [](const Tensor& x, const Tensor& y) { return pow(x, remainder(y, 4)); }},
        {"pow_scalar", [](const Tensor& x, const Tensor&) { return pow(x, 3); }},
        {"clamp", [](const Tensor& x, const Tensor&) { return clamp(x, -7, 9); }},
        {"relu", [](const Tensor& x, const Tensor&) { return relu(x); }},
    });
  }
  return ops;
}

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
