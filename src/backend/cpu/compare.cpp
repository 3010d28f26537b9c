// CPU kernels of the comparisons, logical and bitwise ops, isnan/isinf/isfinite, isclose, where
// and masked_fill (src/ops/compare.cpp).
#include <cmath>

#include "backend/cpu/elementwise.h"
#include "backend/cpu/kernels.h"

namespace EMBER_CPU_NS {
namespace {

using backend::ElementwiseCall;
using K = backend::ElementwiseKernel;
constexpr auto kIntegral = DtypeSet::Integral;
constexpr auto kBool = Result::Bool;
constexpr auto kEveryLevel = Integers::EveryLevel;  // selections: see Integers

#define EMBER_COMPARE_FN(name, op) \
  inline constexpr auto name##_fn = []<class T>() { return [](T x, T y) { return x op y; }; };
EMBER_COMPARE_FN(eq, ==)
EMBER_COMPARE_FN(ne, !=)
EMBER_COMPARE_FN(lt, <)
EMBER_COMPARE_FN(le, <=)
EMBER_COMPARE_FN(gt, >)
EMBER_COMPARE_FN(ge, >=)
EMBER_COMPARE_FN(logical_and, &&)
EMBER_COMPARE_FN(logical_or, ||)
EMBER_COMPARE_FN(logical_xor, !=)
#undef EMBER_COMPARE_FN

inline constexpr auto logical_not_fn = []<class T>() { return [](T x) { return !x; }; };

inline constexpr auto and_fn = []<class T>() { return [](T x, T y) { return T(x & y); }; };
inline constexpr auto or_fn = []<class T>() { return [](T x, T y) { return T(x | y); }; };
inline constexpr auto xor_fn = []<class T>() { return [](T x, T y) { return T(x ^ y); }; };
inline constexpr auto bitwise_not_fn = []<class T>() {
  return [](T x) -> T {
    if constexpr (std::is_same_v<T, bool>) return !x;
    else return T(~x);
  };
};

inline constexpr auto isnan_fn = []<class T>() { return [](T x) { return x != x; }; };
inline constexpr auto isinf_fn = []<class T>() {
  return [](T x) {
    if constexpr (std::is_floating_point_v<T>) return std::isinf(x);
    else return false;
  };
};
inline constexpr auto isfinite_fn = []<class T>() {
  return [](T x) {
    if constexpr (std::is_floating_point_v<T>) return std::isfinite(x);
    else return true;
  };
};

inline constexpr auto where_fn = []<class T>() {
  return [](T c, T x, T y) { return c != T(0) ? x : y; };
};

void masked_fill(const ElementwiseCall& c) {
  const Scalar value = *c.args.scalar[0];
  run_elementwise<K::masked_fill, kAll, 2, Result::Compute, kEveryLevel>(c, [value]<class T>() {
    return [v = value.to<T>()](T x, T keep) { return keep != T(0) ? v : x; };
  });
}

// As PyTorch: equal, or both NaN with equal_nan, or |x - y| finite and <= atol + |rtol * y|,
// the errors computed in the inputs' type (the default float for integers and bool).
void isclose(const ElementwiseCall& c) {
  const double rtol = c.args.real[0], atol = c.args.real[1];
  const bool equal_nan = c.args.flag;
  run_elementwise<K::isclose, kAll, 2, kBool>(c, [=]<class T>() {
    using M = std::conditional_t<std::is_floating_point_v<T>, T, float>;
    const M r = M(rtol), at = M(atol);
    const bool exact = rtol == 0 && atol == 0;
    return [=](T x, T y) -> bool {
      if (x == y) return true;
      if constexpr (std::is_floating_point_v<T>)
        if (equal_nan && x != x && y != y) return true;
      const M actual = std::abs(M(x) - M(y));
      return !exact && std::isfinite(actual) && actual <= at + std::abs(r * M(y));
    };
  });
}

}  // namespace

void add_compare_kernels(backend::Backend& b) {
  set_entry<K::eq, kAll, 2, eq_fn, kBool>(b);
  set_entry<K::ne, kAll, 2, ne_fn, kBool>(b);
  set_entry<K::lt, kAll, 2, lt_fn, kBool>(b);
  set_entry<K::le, kAll, 2, le_fn, kBool>(b);
  set_entry<K::gt, kAll, 2, gt_fn, kBool>(b);
  set_entry<K::ge, kAll, 2, ge_fn, kBool>(b);
  set_entry<K::logical_and, kAll, 2, logical_and_fn, kBool>(b);
  set_entry<K::logical_or, kAll, 2, logical_or_fn, kBool>(b);
  set_entry<K::logical_xor, kAll, 2, logical_xor_fn, kBool>(b);
  set_entry<K::logical_not, kAll, 1, logical_not_fn, kBool>(b);
  set_entry<K::isnan, kAll, 1, isnan_fn, kBool>(b);
  set_entry<K::isinf, kAll, 1, isinf_fn, kBool>(b);
  set_entry<K::isfinite, kAll, 1, isfinite_fn, kBool>(b);
  b[K::isclose] = &isclose;
  set_entry<K::bitwise_and, kIntegral, 2, and_fn>(b);
  set_entry<K::bitwise_or, kIntegral, 2, or_fn>(b);
  set_entry<K::bitwise_xor, kIntegral, 2, xor_fn>(b);
  set_entry<K::bitwise_not, kIntegral, 1, bitwise_not_fn>(b);
  set_entry<K::where, kAll, 3, where_fn, Result::Compute, kEveryLevel>(b);
  b[K::masked_fill] = &masked_fill;
}

}  // namespace EMBER_CPU_NS
