// Unary math: neg, abs, sign, sqrt/rsqrt/square, exp/log families, trigonometric and hyperbolic
// functions, erf/erfc, rounding, reciprocal, clamp, nan_to_num — each a one-line functor that the
// elementwise front end runs (SIMD through SLEEF for float/double; half types in float).
#include <cmath>
#include <limits>

#include "ember/math.h"
#include "ops/elementwise.h"

namespace ember {
namespace {

// Ops whose integer inputs produce the default float (exp(int) is float32, as in PyTorch).
template <class Make>
Tensor float_op(const char* op, const Tensor& t, const Make& make, const Tensor* target = nullptr) {
  return elementwise<Promote::IntToFloat, DtypeSet::Floating>(op, {t}, make, target);
}
// Ops that keep the input dtype.
template <DtypeSet S = DtypeSet::Numeric, class Make>
Tensor same_op(const char* op, const Tensor& t, const Make& make, const Tensor* target = nullptr) {
  return elementwise<Promote::Default, S>(op, {t}, make, target);
}

#define EMBER_UNARY_FN(name, expr) \
  inline constexpr auto name##_fn = []<class T>() { return [](auto x) { return expr; }; };
EMBER_UNARY_FN(sqrt, cpu::sqrt(x))
EMBER_UNARY_FN(rsqrt, decltype(x)(1) / cpu::sqrt(x))
EMBER_UNARY_FN(exp, cpu::exp(x))
EMBER_UNARY_FN(exp2, cpu::exp2(x))
EMBER_UNARY_FN(expm1, cpu::expm1(x))
EMBER_UNARY_FN(log, cpu::log(x))
EMBER_UNARY_FN(log2, cpu::log2(x))
EMBER_UNARY_FN(log10, cpu::log10(x))
EMBER_UNARY_FN(log1p, cpu::log1p(x))
EMBER_UNARY_FN(sin, cpu::sin(x))
EMBER_UNARY_FN(cos, cpu::cos(x))
EMBER_UNARY_FN(tan, cpu::tan(x))
EMBER_UNARY_FN(asin, cpu::asin(x))
EMBER_UNARY_FN(acos, cpu::acos(x))
EMBER_UNARY_FN(atan, cpu::atan(x))
EMBER_UNARY_FN(tanh, cpu::tanh(x))
EMBER_UNARY_FN(erf, cpu::erf(x))
EMBER_UNARY_FN(erfc, cpu::erfc(x))
EMBER_UNARY_FN(reciprocal, decltype(x)(1) / x)
EMBER_UNARY_FN(floor, cpu::floor(x))
EMBER_UNARY_FN(ceil, cpu::ceil(x))
EMBER_UNARY_FN(trunc, cpu::trunc(x))
EMBER_UNARY_FN(round, cpu::nearbyint(x))
EMBER_UNARY_FN(frac, x - cpu::trunc(x))
EMBER_UNARY_FN(square, x * x)
#undef EMBER_UNARY_FN

// sinh and cosh stay scalar: SLEEF's overflow early (sinhf(89) is inf, not 2.24e38).
inline constexpr auto sinh_fn = []<class T>() { return [](T x) { return std::sinh(x); }; };
inline constexpr auto cosh_fn = []<class T>() { return [](T x) { return std::cosh(x); }; };

inline constexpr auto neg_fn = []<class T>() { return [](auto x) { return -x; }; };

inline constexpr auto abs_fn = []<class T>() {
  if constexpr (std::is_floating_point_v<T>) {
    return [](auto x) { return cpu::abs(x); };
  } else {
    return [](T x) -> T { return x < 0 ? T(-x) : x; };
  }
};

inline constexpr auto sign_fn = []<class T>() {
  return [](T x) -> T {
    if constexpr (std::is_same_v<T, bool>) return x;
    else return T((T(0) < x) - (x < T(0)));
  };
};

// Integer rounding functions are the identity (bool has no rounding kernel, as in PyTorch).
template <class Fn>
Tensor rounding_op(const char* op, const Tensor& t, const Fn& fn) {
  if (is_integral(t.dtype(), /*include_bool=*/false)) return t.clone();
  return same_op<DtypeSet::Floating>(op, t, fn);
}

// A bound as the compute type T. As c10's checked conversion: an integer bound out of T's range
// is an error, except that a negative one wraps into an unsigned type if its magnitude fits.
template <class T>
T bound(const char* op, Scalar s) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using L = std::numeric_limits<T>;
    const int64_t v = s.to_int();
    const bool fits =
        s.is_floating_point() || (L::is_signed ? v >= int64_t(L::lowest()) && v <= int64_t(L::max())
                                               : v <= int64_t(L::max()) && -v <= int64_t(L::max()));
    EMBER_CHECK(fits, op, "value cannot be converted to type ", dtype_of<T>(), " without overflow");
  }
  return s.to<T>();
}

// Note [clamp and NaN]: as PyTorch, a NaN input stays NaN; a NaN bound makes every element NaN
// when both bounds are given and is ignored when it is the only one; where x equals a bound the
// result is x (so clamp(-0.0, min=0.0) is -0.0, like PyTorch's max(min, x) order).
auto clamp_fn(const char* op, std::optional<Scalar> lo, std::optional<Scalar> hi) {
  return [op, lo, hi]<class T>() {
    using L = std::numeric_limits<T>;
    T l = lo ? bound<T>(op, *lo) : L::has_infinity ? -L::infinity() : L::lowest();
    T h = hi ? bound<T>(op, *hi) : L::has_infinity ? L::infinity() : L::max();
    if (!(lo && hi)) {
      if (l != l) l = -L::infinity();
      if (h != h) h = L::infinity();
    }
    return [l, h](auto x) {
      using V = decltype(x);
      return cpu::vmin(V(h), cpu::vmax(V(l), x));
    };
  };
}

}  // namespace

Tensor neg(const Tensor& t) {
  EMBER_CHECK(t.dtype() != kBool, "neg",
              "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
              "to invert a mask, use the `~` or `logical_not()` operator instead.");
  return same_op("neg", t, neg_fn);
}
Tensor abs(const Tensor& t) { return same_op("abs", t, abs_fn); }
Tensor sign(const Tensor& t) { return same_op<DtypeSet::All>("sign", t, sign_fn); }
Tensor sqrt(const Tensor& t) { return float_op("sqrt", t, sqrt_fn); }
Tensor rsqrt(const Tensor& t) { return float_op("rsqrt", t, rsqrt_fn); }
Tensor square(const Tensor& t) {
  return t.dtype() == kBool ? square(t.to(kInt64)) : same_op("square", t, square_fn);
}
Tensor exp(const Tensor& t) { return float_op("exp", t, exp_fn); }
Tensor exp2(const Tensor& t) { return float_op("exp2", t, exp2_fn); }
Tensor expm1(const Tensor& t) { return float_op("expm1", t, expm1_fn); }
Tensor log(const Tensor& t) { return float_op("log", t, log_fn); }
Tensor log2(const Tensor& t) { return float_op("log2", t, log2_fn); }
Tensor log10(const Tensor& t) { return float_op("log10", t, log10_fn); }
Tensor log1p(const Tensor& t) { return float_op("log1p", t, log1p_fn); }
Tensor sin(const Tensor& t) { return float_op("sin", t, sin_fn); }
Tensor cos(const Tensor& t) { return float_op("cos", t, cos_fn); }
Tensor tan(const Tensor& t) { return float_op("tan", t, tan_fn); }
Tensor asin(const Tensor& t) { return float_op("asin", t, asin_fn); }
Tensor acos(const Tensor& t) { return float_op("acos", t, acos_fn); }
Tensor atan(const Tensor& t) { return float_op("atan", t, atan_fn); }
Tensor sinh(const Tensor& t) { return float_op("sinh", t, sinh_fn); }
Tensor cosh(const Tensor& t) { return float_op("cosh", t, cosh_fn); }
Tensor tanh(const Tensor& t) { return float_op("tanh", t, tanh_fn); }
Tensor erf(const Tensor& t) { return float_op("erf", t, erf_fn); }
Tensor erfc(const Tensor& t) { return float_op("erfc", t, erfc_fn); }
Tensor floor(const Tensor& t) { return rounding_op("floor", t, floor_fn); }
Tensor ceil(const Tensor& t) { return rounding_op("ceil", t, ceil_fn); }
Tensor trunc(const Tensor& t) { return rounding_op("trunc", t, trunc_fn); }
Tensor frac(const Tensor& t) { return same_op<DtypeSet::Floating>("frac", t, frac_fn); }
Tensor round(const Tensor& t, int64_t decimals) {
  if (decimals == 0) return rounding_op("round", t, round_fn);
  EMBER_CHECK(t.is_floating_point(), "round", "round with decimals is only supported for ",
              "floating point tensors, got ", t.dtype());
  // PyTorch scales by 10^|decimals| in the direction that keeps the scale factor exact.
  const double scale = std::pow(10.0, double(std::abs(decimals)));
  return same_op<DtypeSet::Floating>("round", t, [scale, decimals]<class T>() {
    const T s = T(scale);
    return [s, decimals](T x) -> T {
      return decimals > 0 ? std::nearbyint(x * s) / s : std::nearbyint(x / s) * s;
    };
  });
}
Tensor reciprocal(const Tensor& t) { return float_op("reciprocal", t, reciprocal_fn); }

Tensor clamp(const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max) {
  EMBER_CHECK(min || max, "clamp", "At least one of 'min' or 'max' must not be None");
  std::vector<Operand> ops{t};
  if (min) ops.push_back(*min);
  if (max) ops.push_back(*max);
  const Dtype dtype = result_type(ops);
  const Tensor input = t.to(dtype);
  return same_op<DtypeSet::Numeric>("clamp", input, clamp_fn("clamp", min, max));
}
Tensor clamp(const Tensor& t, const Tensor& min, const Tensor& max) {
  return elementwise<Promote::Default, DtypeSet::Numeric>(
      "clamp", {t, min, max}, []<class T>() {
        return [](auto x, auto lo, auto hi) { return cpu::vmin(cpu::vmax(x, lo), hi); };
      });
}
Tensor clamp_min(const Tensor& t, Scalar min) { return clamp(t, min, std::nullopt); }
Tensor clamp_max(const Tensor& t, Scalar max) { return clamp(t, std::nullopt, max); }
Tensor clip(const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max) {
  return clamp(t, min, max);
}

Tensor nan_to_num(const Tensor& t, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  if (!t.is_floating_point()) return t.clone();
  return same_op<DtypeSet::Floating>("nan_to_num", t, [=]<class T>() {
    // Infinities map to the largest finite value of the tensor's own dtype.
    const double hi = t.dtype() == kFloat16    ? 65504.0
                      : t.dtype() == kBFloat16 ? 3.3895313892515355e38
                                               : double(std::numeric_limits<T>::max());
    const T n = T(nan.value_or(0.0)), p = T(posinf.value_or(hi)), m = T(neginf.value_or(-hi));
    return [n, p, m](T x) -> T { return x != x ? n : x == INFINITY ? p : x == -INFINITY ? m : x; };
  });
}

// ── methods ─────────────────────────────────────────────────────────────
Tensor Tensor::neg() const { return ember::neg(*this); }
Tensor& Tensor::neg_() {
  EMBER_CHECK(dtype() != kBool, "neg_",
              "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
              "to invert a mask, use the `~` or `logical_not()` operator instead.");
  same_op("neg_", *this, neg_fn, this);
  return *this;
}
Tensor Tensor::abs() const { return ember::abs(*this); }
Tensor& Tensor::abs_() {
  same_op("abs_", *this, abs_fn, this);
  return *this;
}
Tensor Tensor::sign() const { return ember::sign(*this); }
Tensor Tensor::sqrt() const { return ember::sqrt(*this); }
Tensor& Tensor::sqrt_() {
  float_op("sqrt_", *this, sqrt_fn, this);
  return *this;
}
Tensor Tensor::rsqrt() const { return ember::rsqrt(*this); }
Tensor Tensor::square() const { return ember::square(*this); }
Tensor Tensor::exp() const { return ember::exp(*this); }
Tensor& Tensor::exp_() {
  float_op("exp_", *this, exp_fn, this);
  return *this;
}
Tensor Tensor::exp2() const { return ember::exp2(*this); }
Tensor Tensor::expm1() const { return ember::expm1(*this); }
Tensor Tensor::log() const { return ember::log(*this); }
Tensor& Tensor::log_() {
  float_op("log_", *this, log_fn, this);
  return *this;
}
Tensor Tensor::log2() const { return ember::log2(*this); }
Tensor Tensor::log10() const { return ember::log10(*this); }
Tensor Tensor::log1p() const { return ember::log1p(*this); }
Tensor Tensor::sin() const { return ember::sin(*this); }
Tensor Tensor::cos() const { return ember::cos(*this); }
Tensor Tensor::tan() const { return ember::tan(*this); }
Tensor Tensor::asin() const { return ember::asin(*this); }
Tensor Tensor::acos() const { return ember::acos(*this); }
Tensor Tensor::atan() const { return ember::atan(*this); }
Tensor Tensor::sinh() const { return ember::sinh(*this); }
Tensor Tensor::cosh() const { return ember::cosh(*this); }
Tensor Tensor::tanh() const { return ember::tanh(*this); }
Tensor& Tensor::tanh_() {
  float_op("tanh_", *this, tanh_fn, this);
  return *this;
}
Tensor Tensor::erf() const { return ember::erf(*this); }
Tensor Tensor::erfc() const { return ember::erfc(*this); }
Tensor Tensor::floor() const { return ember::floor(*this); }
Tensor Tensor::ceil() const { return ember::ceil(*this); }
Tensor Tensor::round(int64_t decimals) const { return ember::round(*this, decimals); }
Tensor Tensor::trunc() const { return ember::trunc(*this); }
Tensor Tensor::frac() const { return ember::frac(*this); }
Tensor Tensor::reciprocal() const { return ember::reciprocal(*this); }
Tensor& Tensor::reciprocal_() {
  float_op("reciprocal_", *this, reciprocal_fn, this);
  return *this;
}
Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  return ember::clamp(*this, min, max);
}
Tensor Tensor::clamp(const Tensor& min, const Tensor& max) const {
  return ember::clamp(*this, min, max);
}
Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) {
  EMBER_CHECK(min || max, "clamp_", "At least one of 'min' or 'max' must not be None");
  // The bounds take part in promotion; in place, the result must stay self's dtype.
  std::vector<Operand> ops{*this};
  if (min) ops.push_back(*min);
  if (max) ops.push_back(*max);
  const Dtype dtype = result_type(ops);
  EMBER_CHECK(dtype == this->dtype(), "clamp_", "result type ", dtype,
              " can't be cast to the desired output type ", this->dtype());
  same_op("clamp_", *this, clamp_fn("clamp_", min, max), this);
  return *this;
}
Tensor Tensor::clamp_min(Scalar min) const { return ember::clamp_min(*this, min); }
Tensor Tensor::clamp_max(Scalar max) const { return ember::clamp_max(*this, max); }
Tensor Tensor::nan_to_num(std::optional<double> nan, std::optional<double> posinf,
                          std::optional<double> neginf) const {
  return ember::nan_to_num(*this, nan, posinf, neginf);
}

}  // namespace ember
