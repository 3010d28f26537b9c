// CPU kernels of the unary math ops (src/ops/unary.cpp): each a one-line functor run by the
// shared elementwise loop (SIMD through SLEEF for float/double; half types in float).
#include <cmath>
#include <limits>

#include "backend/cpu/elementwise.h"
#include "backend/cpu/erf_float.h"
#include "backend/cpu/kernels.h"

namespace EMBER_CPU_NS {
namespace {

using backend::ElementwiseCall;
using K = backend::ElementwiseKernel;

#define EMBER_UNARY_FN(name, expr) \
  inline constexpr auto name##_fn = []<class T>() { return [](auto x) { return expr; }; };
EMBER_UNARY_FN(sqrt, cpu::sqrt(x))
EMBER_UNARY_FN(rsqrt, decltype(x)(1) / cpu::sqrt(x))
EMBER_UNARY_FN(exp, exp_fast(x))  // float: inline (exp_float.h)
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
EMBER_UNARY_FN(erfc, cpu::erfc(x))
EMBER_UNARY_FN(reciprocal, decltype(x)(1) / x)
EMBER_UNARY_FN(floor, cpu::floor(x))
EMBER_UNARY_FN(ceil, cpu::ceil(x))
EMBER_UNARY_FN(trunc, cpu::trunc(x))
EMBER_UNARY_FN(round, cpu::nearbyint(x))
EMBER_UNARY_FN(frac, x - cpu::trunc(x))
EMBER_UNARY_FN(square, x * x)
#undef EMBER_UNARY_FN

// float erf through the fast approximation (backend/cpu/erf_float.h), double through SLEEF/libm.
inline constexpr auto erf_fn = []<class T>() {
  return [](auto x) {
    if constexpr (std::is_same_v<T, float>) return cpu::erf_float(x);
    else return cpu::erf(x);
  };
};

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

// round(x, decimals): PyTorch scales by 10^|decimals| in the direction that keeps the scale
// factor exact.
void round_decimals(const ElementwiseCall& c) {
  const int64_t decimals = c.args.integer;
  const double scale = std::pow(10.0, double(std::abs(decimals)));
  run_elementwise<K::round_decimals, kFloating, 1>(c, [scale, decimals]<class T>() {
    const T s = T(scale);
    return [s, decimals](T x) -> T {
      return decimals > 0 ? std::nearbyint(x * s) / s : std::nearbyint(x / s) * s;
    };
  });
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
void clamp(const ElementwiseCall& c) {
  const std::optional<Scalar>& lo = c.args.scalar[0];
  const std::optional<Scalar>& hi = c.args.scalar[1];
  run_elementwise<K::clamp, kNumeric, 1>(c, [op = c.op, &lo, &hi]<class T>() {
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
  });
}

inline constexpr auto clamp_tensor_fn = []<class T>() {
  return [](auto x, auto lo, auto hi) { return cpu::vmin(cpu::vmax(x, lo), hi); };
};

void nan_to_num(const ElementwiseCall& c) {
  // Named copies, not a structured binding: Clang 14 cannot capture a binding in a lambda.
  const double nan = c.args.real[0], posinf = c.args.real[1], neginf = c.args.real[2];
  run_elementwise<K::nan_to_num, kFloating, 1>(c, [=]<class T>() {
    const T n = T(nan), p = T(posinf), m = T(neginf);
    return [n, p, m](T x) -> T { return x != x ? n : x == INFINITY ? p : x == -INFINITY ? m : x; };
  });
}

}  // namespace

void add_unary_kernels(backend::Backend& b) {
  set_entry<K::neg, kNumeric, 1, neg_fn>(b);
  set_entry<K::abs, kNumeric, 1, abs_fn>(b);
  set_entry<K::sign, kAll, 1, sign_fn>(b);
  set_entry<K::sqrt, kFloating, 1, sqrt_fn>(b);
  set_entry<K::rsqrt, kFloating, 1, rsqrt_fn>(b);
  set_entry<K::square, kNumeric, 1, square_fn>(b);
  set_entry<K::exp, kFloating, 1, exp_fn>(b);
  set_entry<K::exp2, kFloating, 1, exp2_fn>(b);
  set_entry<K::expm1, kFloating, 1, expm1_fn>(b);
  set_entry<K::log, kFloating, 1, log_fn>(b);
  set_entry<K::log2, kFloating, 1, log2_fn>(b);
  set_entry<K::log10, kFloating, 1, log10_fn>(b);
  set_entry<K::log1p, kFloating, 1, log1p_fn>(b);
  set_entry<K::sin, kFloating, 1, sin_fn>(b);
  set_entry<K::cos, kFloating, 1, cos_fn>(b);
  set_entry<K::tan, kFloating, 1, tan_fn>(b);
  set_entry<K::asin, kFloating, 1, asin_fn>(b);
  set_entry<K::acos, kFloating, 1, acos_fn>(b);
  set_entry<K::atan, kFloating, 1, atan_fn>(b);
  set_entry<K::sinh, kFloating, 1, sinh_fn>(b);
  set_entry<K::cosh, kFloating, 1, cosh_fn>(b);
  set_entry<K::tanh, kFloating, 1, tanh_fn>(b);
  set_entry<K::erf, kFloating, 1, erf_fn>(b);
  set_entry<K::erfc, kFloating, 1, erfc_fn>(b);
  set_entry<K::reciprocal, kFloating, 1, reciprocal_fn>(b);
  set_entry<K::floor, kFloating, 1, floor_fn>(b);
  set_entry<K::ceil, kFloating, 1, ceil_fn>(b);
  set_entry<K::trunc, kFloating, 1, trunc_fn>(b);
  set_entry<K::round, kFloating, 1, round_fn>(b);
  set_entry<K::frac, kFloating, 1, frac_fn>(b);
  b[K::round_decimals] = &round_decimals;
  b[K::clamp] = &clamp;
  set_entry<K::clamp_tensor, kNumeric, 3, clamp_tensor_fn>(b);
  b[K::nan_to_num] = &nan_to_num;
}

}  // namespace EMBER_CPU_NS
