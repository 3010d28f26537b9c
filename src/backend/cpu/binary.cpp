// CPU kernels of the binary arithmetic ops (src/ops/binary.cpp): add, sub, mul, div
// (true/floor/trunc), remainder, fmod, pow, atan2, maximum/minimum, fmax/fmin, lerp,
// addcmul/addcdiv, hypot, xlogy — each a one-line functor run by the shared elementwise loop.
#include <cmath>

#include "backend/cpu/elementwise.h"
#include "backend/cpu/kernels.h"

namespace EMBER_CPU_NS {
namespace {

using backend::ElementwiseCall;
using K = backend::ElementwiseKernel;

// Integer division and modulo raise on a zero divisor instead of trapping.
template <class T>
void check_divisor(T b, const char* op) {
  if constexpr (std::is_integral_v<T>) EMBER_CHECK(b != 0, op, "ZeroDivisionError");
}

// PyTorch's alpha_check: a bool alpha needs a bool result, a floating one a floating result.
template <class T>
void check_alpha(const char* op, Scalar alpha) {
  EMBER_CHECK((!alpha.is_bool() || std::is_same_v<T, bool>), op,
              "Boolean alpha only supported for Boolean results.");
  EMBER_CHECK(std::is_floating_point_v<T> || !alpha.is_floating_point(), op,
              "For integral input tensors, argument alpha must not be a floating point number.");
}

auto add_fn(const char* op, Scalar alpha) {
  return [op, alpha]<class T>() {
    check_alpha<T>(op, alpha);
    const T s = alpha.to<T>();
    if constexpr (std::is_same_v<T, bool>) {
      return [s](auto x, auto y) { return bool(x || (s && y)); };
    } else {
      return [s](auto x, auto y) { return x + s * y; };
    }
  };
}

auto sub_fn(const char* op, Scalar alpha) {
  return [op, alpha]<class T>() {
    check_alpha<T>(op, alpha);
    const T s = alpha.to<T>();
    return [s](auto x, auto y) { return x - s * y; };
  };
}

inline constexpr auto mul_fn = []<class T>() {
  if constexpr (std::is_same_v<T, bool>) {
    return [](auto x, auto y) { return bool(x && y); };
  } else {
    return [](auto x, auto y) { return x * y; };
  }
};

inline constexpr auto true_div_fn = []<class T>() { return [](auto x, auto y) { return x / y; }; };

// Python's floor division: for floats, PyTorch's div_floor (exact quotient adjusted toward
// -inf, and the sign of zero kept); for integers, C division corrected for mixed signs.
template <class T>
T floor_div(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (b == 0) return a / b;
    const T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != 0 && (b < 0) != (mod < 0)) div -= 1;
    if (div == 0) return std::copysign(T(0), a / b);
    T floordiv = std::floor(div);
    if (div - floordiv > T(0.5)) floordiv += 1;
    return floordiv;
  } else {
    check_divisor(b, "floor_divide");
    const T q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? T(q - 1) : q;
  }
}

inline constexpr auto floor_div_fn = []<class T>() {
  return [](T x, T y) { return floor_div(x, y); };
};

inline constexpr auto trunc_div_fn = []<class T>() {
  return [](T x, T y) -> T {
    if constexpr (std::is_floating_point_v<T>) {
      return std::trunc(x / y);
    } else {
      check_divisor(y, "div");
      return T(x / y);
    }
  };
};

inline constexpr auto remainder_fn = []<class T>() {
  return [](T a, T b) -> T {
    if constexpr (std::is_floating_point_v<T>) {
      T mod = std::fmod(a, b);
      if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
      return mod;
    } else {
      check_divisor(b, "remainder");
      T mod = T(a % b);
      if (mod != 0 && ((b < 0) != (mod < 0))) mod = T(mod + b);
      return mod;
    }
  };
};

inline constexpr auto fmod_fn = []<class T>() {
  return [](T a, T b) -> T {
    if constexpr (std::is_floating_point_v<T>) {
      return std::fmod(a, b);
    } else {
      check_divisor(b, "fmod");
      return T(a % b);
    }
  };
};

template <class T>
T int_pow(T base, T exp) {
  if (exp < 0) {  // only 1 and -1 have non-zero integer reciprocals
    if (base == 1) return 1;
    if (base == -1) return (exp & 1) ? T(-1) : T(1);
    return 0;
  }
  T result = 1;
  while (exp) {
    if (exp & 1) result = T(result * base);
    base = T(base * base);
    exp >>= 1;
  }
  return result;
}

inline constexpr auto pow_fn = []<class T>() {
  if constexpr (std::is_floating_point_v<T>) {
    return [](auto x, auto y) { return cpu::pow(x, y); };
  } else {
    return [](T x, T y) -> T {
      if constexpr (std::is_same_v<T, bool>) return x || !y;
      else return int_pow(x, y);
    };
  }
};

inline constexpr auto maximum_fn = []<class T>() {
  return [](auto x, auto y) { return cpu::vmax(x, y); };
};
inline constexpr auto minimum_fn = []<class T>() {
  return [](auto x, auto y) { return cpu::vmin(x, y); };
};

inline constexpr auto fmax_fn = []<class T>() {
  return [](T x, T y) -> T {
    if constexpr (std::is_floating_point_v<T>) return std::fmax(x, y);
    else return x > y ? x : y;
  };
};
inline constexpr auto fmin_fn = []<class T>() {
  return [](T x, T y) -> T {
    if constexpr (std::is_floating_point_v<T>) return std::fmin(x, y);
    else return x < y ? x : y;
  };
};

// PyTorch 1.13's lerp: from the end nearer a weight in [0, 1], so lerp(a, b, 1) == b exactly;
// fused multiply-adds, as its kernel is compiled (and as later versions write it).
template <class T>
T lerp_value(T a, T b, T w) {
  return w < T(0.5) ? std::fma(w, b - a, a) : std::fma(a - b, T(1) - w, b);
}
inline constexpr auto lerp_fn = []<class T>() {
  return [](T a, T b, T w) { return lerp_value(a, b, w); };
};
// A scalar weight is an argument, not an operand: it stays in the compute type (float for half).
auto lerp_scalar_fn(Scalar weight) {
  return [weight]<class T>() {
    return [w = weight.to<T>()](T a, T b) { return lerp_value(a, b, w); };
  };
}


auto addcmul_fn(Scalar value) {
  return [value]<class T>() {
    const T v = value.to<T>();
    return [v](auto s, auto a, auto b) { return s + v * a * b; };
  };
}

auto addcdiv_fn(Scalar value) {
  return [value]<class T>() {
    const T v = value.to<T>();
    return [v](auto s, auto a, auto b) { return s + v * a / b; };
  };
}

inline constexpr auto atan2_fn = []<class T>() {
  return [](auto y, auto x) { return cpu::atan2(y, x); };
};
inline constexpr auto hypot_fn = []<class T>() {
  return [](T x, T y) { return std::hypot(x, y); };
};
// x * log(y), 0 where x == 0 (NaN where y is).
inline constexpr auto xlogy_fn = []<class T>() {
  return [](T x, T y) -> T {
    if (y != y) return y;
    return x == 0 ? T(0) : x * std::log(y);
  };
};

// pow with a scalar exponent (the second operand): the common exponents take exact, faster
// paths (as PyTorch).
void pow_scalar(const ElementwiseCall& c) {
  const double v = c.args.real[0];
  const auto run = [&](auto make) { run_elementwise<K::pow_scalar, kNumeric, 2>(c, make); };
  if (v == 1) return run([]<class T>() { return [](auto x, auto) { return x; }; });
  if (v == 2) return run([]<class T>() { return [](auto x, auto) { return x * x; }; });
  if (v == 3) return run([]<class T>() { return [](auto x, auto) { return x * x * x; }; });
  if (is_floating_point(c.compute)) {
    if (v == 0.5) return run([]<class T>() { return [](auto x, auto) { return cpu::sqrt(x); }; });
    if (v == -0.5)
      return run([]<class T>() { return [](auto x, auto) { return T(1) / cpu::sqrt(x); }; });
    if (v == -1) return run([]<class T>() { return [](auto x, auto) { return T(1) / x; }; });
    if (v == -2) return run([]<class T>() { return [](auto x, auto) { return T(1) / (x * x); }; });
  }
  run(pow_fn);
}

}  // namespace

void add_binary_kernels(backend::Backend& b) {
  b[K::add] = [](const ElementwiseCall& c) {
    run_elementwise<K::add, kAll, 2>(c, add_fn(c.op, *c.args.scalar[0]));
  };
  b[K::sub] = [](const ElementwiseCall& c) {
    run_elementwise<K::sub, kNumeric, 2>(c, sub_fn(c.op, *c.args.scalar[0]));
  };
  set_entry<K::mul, kAll, 2, mul_fn>(b);
  set_entry<K::true_div, kNumeric, 2, true_div_fn>(b);
  set_entry<K::floor_div, kNumeric, 2, floor_div_fn>(b);
  set_entry<K::trunc_div, kNumeric, 2, trunc_div_fn>(b);
  set_entry<K::remainder, kNumeric, 2, remainder_fn>(b);
  set_entry<K::fmod, kNumeric, 2, fmod_fn>(b);
  set_entry<K::pow, kNumeric, 2, pow_fn>(b);
  b[K::pow_scalar] = &pow_scalar;
  set_entry<K::atan2, kFloating, 2, atan2_fn>(b);
  set_entry<K::maximum, kAll, 2, maximum_fn>(b);
  set_entry<K::minimum, kAll, 2, minimum_fn>(b);
  set_entry<K::fmax, kAll, 2, fmax_fn>(b);
  set_entry<K::fmin, kAll, 2, fmin_fn>(b);
  set_entry<K::lerp, kFloating, 3, lerp_fn>(b);
  b[K::lerp_scalar] = [](const ElementwiseCall& c) {
    run_elementwise<K::lerp_scalar, kFloating, 2>(c, lerp_scalar_fn(*c.args.scalar[0]));
  };
  b[K::addcmul] = [](const ElementwiseCall& c) {
    run_elementwise<K::addcmul, kNumeric, 3>(c, addcmul_fn(*c.args.scalar[0]));
  };
  b[K::addcdiv] = [](const ElementwiseCall& c) {
    run_elementwise<K::addcdiv, kNumeric, 3>(c, addcdiv_fn(*c.args.scalar[0]));
  };
  set_entry<K::hypot, kFloating, 2, hypot_fn>(b);
  set_entry<K::xlogy, kFloating, 2, xlogy_fn>(b);
}

}  // namespace EMBER_CPU_NS
