// Elementwise math as free functions and C++ operators (PyTorch's torch.* spellings).
// Binary ops broadcast and promote like PyTorch; a Scalar may stand on either side.
#pragma once

#include <optional>
#include <string>

#include "ember/tensor.h"

namespace ember {

// ── arithmetic ──────────────────────────────────────────────────────────
Tensor add(const Tensor& a, const Tensor& b, Scalar alpha = 1);
Tensor add(const Tensor& a, Scalar b, Scalar alpha = 1);
Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha = 1);
Tensor sub(const Tensor& a, Scalar b, Scalar alpha = 1);
Tensor rsub(const Tensor& a, Scalar b);  // b - a
Tensor mul(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, Scalar b);
struct DivOptions {
  std::optional<std::string> rounding_mode = {};  // none, "floor" or "trunc"
};
Tensor div(const Tensor& a, const Tensor& b, DivOptions options = {});
Tensor div(const Tensor& a, Scalar b, DivOptions options = {});
Tensor div(Scalar a, const Tensor& b, DivOptions options = {});
Tensor floor_divide(const Tensor& a, const Tensor& b);
Tensor floor_divide(const Tensor& a, Scalar b);
/// Python's %: the result has the sign of the divisor.
Tensor remainder(const Tensor& a, const Tensor& b);
Tensor remainder(const Tensor& a, Scalar b);
Tensor remainder(Scalar a, const Tensor& b);
/// C's fmod: the result has the sign of the dividend.
Tensor fmod(const Tensor& a, const Tensor& b);
Tensor fmod(const Tensor& a, Scalar b);
Tensor pow(const Tensor& base, const Tensor& exponent);
Tensor pow(const Tensor& base, Scalar exponent);
Tensor pow(Scalar base, const Tensor& exponent);
Tensor atan2(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
/// max/min ignoring NaN (a NaN loses unless both are NaN).
Tensor fmax(const Tensor& a, const Tensor& b);
Tensor fmin(const Tensor& a, const Tensor& b);
Tensor lerp(const Tensor& start, const Tensor& end, Scalar weight);
Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight);
Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value = 1);
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value = 1);
Tensor hypot(const Tensor& a, const Tensor& b);
Tensor xlogy(const Tensor& a, const Tensor& b);

// ── unary ───────────────────────────────────────────────────────────────
Tensor neg(const Tensor& t);
Tensor abs(const Tensor& t);
Tensor sign(const Tensor& t);
Tensor sqrt(const Tensor& t);
Tensor rsqrt(const Tensor& t);
Tensor square(const Tensor& t);
Tensor exp(const Tensor& t);
Tensor exp2(const Tensor& t);
Tensor expm1(const Tensor& t);
Tensor log(const Tensor& t);
Tensor log2(const Tensor& t);
Tensor log10(const Tensor& t);
Tensor log1p(const Tensor& t);
Tensor sin(const Tensor& t);
Tensor cos(const Tensor& t);
Tensor tan(const Tensor& t);
Tensor asin(const Tensor& t);
Tensor acos(const Tensor& t);
Tensor atan(const Tensor& t);
Tensor sinh(const Tensor& t);
Tensor cosh(const Tensor& t);
Tensor tanh(const Tensor& t);
Tensor erf(const Tensor& t);
Tensor erfc(const Tensor& t);
Tensor floor(const Tensor& t);
Tensor ceil(const Tensor& t);
Tensor round(const Tensor& t, int64_t decimals = 0);
Tensor trunc(const Tensor& t);
Tensor frac(const Tensor& t);
Tensor reciprocal(const Tensor& t);
Tensor nan_to_num(const Tensor& t, std::optional<double> nan = {},
                  std::optional<double> posinf = {}, std::optional<double> neginf = {});
Tensor clamp(const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max = {});
Tensor clamp(const Tensor& t, const Tensor& min, const Tensor& max);
Tensor clamp_min(const Tensor& t, Scalar min);
Tensor clamp_max(const Tensor& t, Scalar max);
Tensor clip(const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max = {});

// ── activations ─────────────────────────────────────────────────────────
Tensor sigmoid(const Tensor& t);
Tensor logit(const Tensor& t, std::optional<double> eps = {});
Tensor relu(const Tensor& t);
Tensor relu6(const Tensor& t);
Tensor leaky_relu(const Tensor& t, double negative_slope = 0.01);
Tensor elu(const Tensor& t, double alpha = 1.0, double scale = 1.0, double input_scale = 1.0);
Tensor selu(const Tensor& t);
struct GeluOptions {
  std::string approximate = "none";  // or "tanh"
};
Tensor gelu(const Tensor& t, GeluOptions options = {});
Tensor silu(const Tensor& t);
Tensor hardshrink(const Tensor& t, double lambd = 0.5);
Tensor mish(const Tensor& t);
Tensor softplus(const Tensor& t, double beta = 1.0, double threshold = 20.0);
Tensor hardtanh(const Tensor& t, double min_val = -1.0, double max_val = 1.0);
Tensor hardsigmoid(const Tensor& t);
Tensor hardswish(const Tensor& t);

// ── comparison and logic (results are bool) ─────────────────────────────
Tensor eq(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);
Tensor logical_xor(const Tensor& a, const Tensor& b);
Tensor logical_not(const Tensor& t);
Tensor bitwise_and(const Tensor& a, const Tensor& b);
Tensor bitwise_or(const Tensor& a, const Tensor& b);
Tensor bitwise_xor(const Tensor& a, const Tensor& b);
Tensor bitwise_not(const Tensor& t);
Tensor isnan(const Tensor& t);
Tensor isinf(const Tensor& t);
Tensor isfinite(const Tensor& t);
/// Elements of a where condition holds, else of b (broadcast, promoted).
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
Tensor where(const Tensor& condition, const Tensor& a, Scalar b);
Tensor where(const Tensor& condition, Scalar a, const Tensor& b);
Tensor where(const Tensor& condition, Scalar a, Scalar b);
Tensor masked_fill(const Tensor& t, const Tensor& mask, Scalar value);
/// True when every element of a and b is close: |a - b| <= atol + rtol * |b|.
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8,
              bool equal_nan = false);
Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8,
               bool equal_nan = false);

// ── operators ───────────────────────────────────────────────────────────
inline Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
inline Tensor operator+(const Tensor& a, Scalar b) { return add(a, b); }
inline Tensor operator+(Scalar a, const Tensor& b) { return add(b, a); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
inline Tensor operator-(const Tensor& a, Scalar b) { return sub(a, b); }
inline Tensor operator-(Scalar a, const Tensor& b) { return rsub(b, a); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
inline Tensor operator*(const Tensor& a, Scalar b) { return mul(a, b); }
inline Tensor operator*(Scalar a, const Tensor& b) { return mul(b, a); }
inline Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
inline Tensor operator/(const Tensor& a, Scalar b) { return div(a, b); }
inline Tensor operator/(Scalar a, const Tensor& b) { return div(a, b); }
inline Tensor operator%(const Tensor& a, const Tensor& b) { return remainder(a, b); }
inline Tensor operator%(const Tensor& a, Scalar b) { return remainder(a, b); }
inline Tensor operator%(Scalar a, const Tensor& b) { return remainder(a, b); }
inline Tensor operator-(const Tensor& a) { return neg(a); }
inline Tensor operator==(const Tensor& a, const Tensor& b) { return a.eq(b); }
inline Tensor operator==(const Tensor& a, Scalar b) { return a.eq(b); }
inline Tensor operator==(Scalar a, const Tensor& b) { return b.eq(a); }
inline Tensor operator!=(const Tensor& a, const Tensor& b) { return a.ne(b); }
inline Tensor operator!=(const Tensor& a, Scalar b) { return a.ne(b); }
inline Tensor operator!=(Scalar a, const Tensor& b) { return b.ne(a); }
inline Tensor operator<(const Tensor& a, const Tensor& b) { return a.lt(b); }
inline Tensor operator<(const Tensor& a, Scalar b) { return a.lt(b); }
inline Tensor operator<(Scalar a, const Tensor& b) { return b.gt(a); }
inline Tensor operator<=(const Tensor& a, const Tensor& b) { return a.le(b); }
inline Tensor operator<=(const Tensor& a, Scalar b) { return a.le(b); }
inline Tensor operator<=(Scalar a, const Tensor& b) { return b.ge(a); }
inline Tensor operator>(const Tensor& a, const Tensor& b) { return a.gt(b); }
inline Tensor operator>(const Tensor& a, Scalar b) { return a.gt(b); }
inline Tensor operator>(Scalar a, const Tensor& b) { return b.lt(a); }
inline Tensor operator>=(const Tensor& a, const Tensor& b) { return a.ge(b); }
inline Tensor operator>=(const Tensor& a, Scalar b) { return a.ge(b); }
inline Tensor operator>=(Scalar a, const Tensor& b) { return b.le(a); }
inline Tensor operator!(const Tensor& a) { return logical_not(a); }
inline Tensor operator~(const Tensor& a) { return bitwise_not(a); }
Tensor operator&(const Tensor& a, const Tensor& b);
Tensor operator&(const Tensor& a, Scalar b);
Tensor operator|(const Tensor& a, const Tensor& b);
Tensor operator|(const Tensor& a, Scalar b);
Tensor operator^(const Tensor& a, const Tensor& b);
Tensor operator^(const Tensor& a, Scalar b);
inline Tensor& operator+=(Tensor& a, const Tensor& b) { return a.add_(b); }
inline Tensor& operator+=(Tensor& a, Scalar b) { return a.add_(b); }
inline Tensor& operator-=(Tensor& a, const Tensor& b) { return a.sub_(b); }
inline Tensor& operator-=(Tensor& a, Scalar b) { return a.sub_(b); }
inline Tensor& operator*=(Tensor& a, const Tensor& b) { return a.mul_(b); }
inline Tensor& operator*=(Tensor& a, Scalar b) { return a.mul_(b); }
inline Tensor& operator/=(Tensor& a, const Tensor& b) { return a.div_(b); }
inline Tensor& operator/=(Tensor& a, Scalar b) { return a.div_(b); }

}  // namespace ember
