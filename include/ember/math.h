// Elementwise arithmetic and unary math as free functions, and the arithmetic C++ operators
// (PyTorch's torch.* spellings). Binary ops broadcast and promote like PyTorch; a Scalar may
// stand on either side. The activations are in activation.h and the comparisons and logic (with
// their operators) in compare.h, which this header includes, so including math.h gives all three.
#pragma once

#include <optional>
#include <string>

#include "ember/activation.h"
#include "ember/compare.h"
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
inline Tensor& operator+=(Tensor& a, const Tensor& b) { return a.add_(b); }
inline Tensor& operator+=(Tensor& a, Scalar b) { return a.add_(b); }
inline Tensor& operator-=(Tensor& a, const Tensor& b) { return a.sub_(b); }
inline Tensor& operator-=(Tensor& a, Scalar b) { return a.sub_(b); }
inline Tensor& operator*=(Tensor& a, const Tensor& b) { return a.mul_(b); }
inline Tensor& operator*=(Tensor& a, Scalar b) { return a.mul_(b); }
inline Tensor& operator/=(Tensor& a, const Tensor& b) { return a.div_(b); }
inline Tensor& operator/=(Tensor& a, Scalar b) { return a.div_(b); }

}  // namespace ember
