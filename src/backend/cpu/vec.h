// Vec<T>: a SIMD register of float or double (AVX-512, AVX2 or SSE2, chosen at compile time)
// with the arithmetic, comparisons and math functions (SLEEF, 1-ULP variants) that kernels use.
// Note [Inner loops]: a kernel is a functor whose templated operator() is written once with these
// primitives; the loop calls it on Vec<T> for the bulk of a contiguous run and on T for the tail
// and for strided runs, so every op has one definition for both paths.
#pragma once

#include <sleef.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "backend/cpu/level.h"

namespace EMBER_CPU_NS {

#if defined(__AVX512F__)
inline constexpr int kVecBytes = 64;
#elif defined(__AVX__)
inline constexpr int kVecBytes = 32;
#else
inline constexpr int kVecBytes = 16;
#endif

// GCC vector types (the attribute cannot be applied to a dependent type, hence the traits).
typedef float vfloat_t __attribute__((vector_size(kVecBytes)));
typedef double vdouble_t __attribute__((vector_size(kVecBytes)));
typedef int32_t vint32_t __attribute__((vector_size(kVecBytes)));
typedef int64_t vint64_t __attribute__((vector_size(kVecBytes)));
typedef uint32_t vuint32_t __attribute__((vector_size(kVecBytes)));
typedef uint16_t vbf16_t __attribute__((vector_size(kVecBytes / 2)));  // a float vector's bfloat16s
template <class T> struct VecTypes;
template <> struct VecTypes<float> { using V = vfloat_t; using Mask = vint32_t; };
template <> struct VecTypes<double> { using V = vdouble_t; using Mask = vint64_t; };

template <class T>
struct Vec {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  static constexpr int size = kVecBytes / int(sizeof(T));
  using V = typename VecTypes<T>::V;
  using Mask = typename VecTypes<T>::Mask;
  V v;

  Vec() = default;
  Vec(V x) : v(x) {}                           // NOLINT
  Vec(T x) : v(V{} + x) {}                     // NOLINT: broadcast
  static Vec load(const T* p) {
    Vec r;
    std::memcpy(&r.v, p, sizeof(V));
    return r;
  }
  void store(T* p) const { std::memcpy(p, &v, sizeof(V)); }
  T operator[](int i) const { return v[i]; }

  friend Vec operator+(Vec a, Vec b) { return a.v + b.v; }
  friend Vec operator-(Vec a, Vec b) { return a.v - b.v; }
  friend Vec operator*(Vec a, Vec b) { return a.v * b.v; }
  friend Vec operator/(Vec a, Vec b) { return a.v / b.v; }
  friend Vec operator-(Vec a) { return -a.v; }
};

/// True for the element types that have a Vec (float, double).
template <class T>
inline constexpr bool simd_type_v = std::is_same_v<T, float> || std::is_same_v<T, double>;

template <class T> struct is_vec : std::false_type {};
template <class T> struct is_vec<Vec<T>> : std::true_type {};
template <class T> inline constexpr bool is_vec_v = is_vec<T>::value;

// ── comparisons and selection (scalars and vectors alike) ──────────────────
template <class T>
inline auto select(typename Vec<T>::Mask m, Vec<T> a, Vec<T> b) -> Vec<T> {
  return m ? a.v : b.v;
}
template <class T>
inline T select(bool m, T a, T b) { return m ? a : b; }
template <class T> inline auto gt(Vec<T> a, Vec<T> b) { return a.v > b.v; }
template <class T> inline auto lt(Vec<T> a, Vec<T> b) { return a.v < b.v; }
template <class T> inline auto ge(Vec<T> a, Vec<T> b) { return a.v >= b.v; }
template <class T> inline auto le(Vec<T> a, Vec<T> b) { return a.v <= b.v; }
template <class T> inline auto isnan_mask(Vec<T> a) { return a.v != a.v; }
template <class T> inline bool gt(T a, T b) { return a > b; }
template <class T> inline bool lt(T a, T b) { return a < b; }
template <class T> inline bool ge(T a, T b) { return a >= b; }
template <class T> inline bool le(T a, T b) { return a <= b; }
template <class T> inline bool isnan_mask(T a) { return a != a; }

// max/min that propagate NaN like PyTorch's maximum/clamp.
template <class T>
inline Vec<T> vmax(Vec<T> a, Vec<T> b) {
  return select<T>(isnan_mask(a) | isnan_mask(b), Vec<T>(a.v + b.v), Vec<T>(a.v > b.v ? a.v : b.v));
}
template <class T>
inline Vec<T> vmin(Vec<T> a, Vec<T> b) {
  return select<T>(isnan_mask(a) | isnan_mask(b), Vec<T>(a.v + b.v), Vec<T>(a.v < b.v ? a.v : b.v));
}
template <class T>
inline T vmax(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    if (a != a || b != b) return a + b;
  return a > b ? a : b;
}
template <class T>
inline T vmin(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    if (a != a || b != b) return a + b;
  return a < b ? a : b;
}

// The sum of a vector's lanes, added in lane order.
template <class T>
inline T hsum(Vec<T> v) {
  T s = 0;
  for (int k = 0; k < Vec<T>::size; ++k) s += v[k];
  return s;
}

// The max of x[0, n), NaN if any element is NaN (as vmax), -inf for n == 0. Four running maxima
// over whole vectors: vmax's NaN checks make a single chain of them latency-bound. (Each starts
// from the first vector: max is idempotent.)
template <class T>
inline T row_max(const T* x, int64_t n) {
  constexpr int W = Vec<T>::size;
  T mx = -std::numeric_limits<T>::infinity();
  int64_t i = 0;
  if (n >= W) {
    Vec<T> vm[4];
    for (Vec<T>& m : vm) m = Vec<T>::load(x);
    for (i = W; i + 4 * W <= n; i += 4 * W)
      for (int k = 0; k < 4; ++k) vm[k] = vmax(vm[k], Vec<T>::load(x + i + k * W));
    for (; i + W <= n; i += W) vm[0] = vmax(vm[0], Vec<T>::load(x + i));
    const Vec<T> v = vmax(vmax(vm[0], vm[1]), vmax(vm[2], vm[3]));
    for (int k = 0; k < W; ++k) mx = vmax(mx, v[k]);
  }
  for (; i < n; ++i) mx = vmax(mx, x[i]);
  return mx;
}

// ── math: SLEEF for vectors, libm for scalars ─────────────────────────────
#if defined(__AVX512F__)
#define EMBER_SLEEF_F(fn, acc) Sleef_##fn##f16##acc
#define EMBER_SLEEF_D(fn, acc) Sleef_##fn##d8##acc
#elif defined(__AVX__)
#define EMBER_SLEEF_F(fn, acc) Sleef_##fn##f8##acc
#define EMBER_SLEEF_D(fn, acc) Sleef_##fn##d4##acc
#else
#define EMBER_SLEEF_F(fn, acc) Sleef_##fn##f4##acc
#define EMBER_SLEEF_D(fn, acc) Sleef_##fn##d2##acc
#endif

// One wrapper pair per function: Vec<float> and Vec<double> through SLEEF.
#define EMBER_VEC_MATH1(name, fn, acc)                                              \
  inline Vec<float> name(Vec<float> x) { return Vec<float>(EMBER_SLEEF_F(fn, acc)(x.v)); } \
  inline Vec<double> name(Vec<double> x) { return Vec<double>(EMBER_SLEEF_D(fn, acc)(x.v)); }
#define EMBER_VEC_MATH2(name, fn, acc)                                              \
  inline Vec<float> name(Vec<float> x, Vec<float> y) {                              \
    return Vec<float>(EMBER_SLEEF_F(fn, acc)(x.v, y.v));                            \
  }                                                                                 \
  inline Vec<double> name(Vec<double> x, Vec<double> y) {                           \
    return Vec<double>(EMBER_SLEEF_D(fn, acc)(x.v, y.v));                           \
  }

EMBER_VEC_MATH1(exp, exp, _u10)
EMBER_VEC_MATH1(exp2, exp2, _u10)
EMBER_VEC_MATH1(expm1, expm1, _u10)
EMBER_VEC_MATH1(log, log, _u10)
EMBER_VEC_MATH1(log2, log2, _u10)
EMBER_VEC_MATH1(log10, log10, _u10)
EMBER_VEC_MATH1(log1p, log1p, _u10)
EMBER_VEC_MATH1(sin, sin, _u10)
EMBER_VEC_MATH1(cos, cos, _u10)
EMBER_VEC_MATH1(tan, tan, _u10)
EMBER_VEC_MATH1(asin, asin, _u10)
EMBER_VEC_MATH1(acos, acos, _u10)
EMBER_VEC_MATH1(atan, atan, _u10)
// SLEEF's sinh/cosh overflow early (float |x| > 88.5, double |x| > 709, where the result is
// still finite): src/ops/unary.cpp uses libm's for them.
EMBER_VEC_MATH1(sinh, sinh, _u10)
EMBER_VEC_MATH1(cosh, cosh, _u10)
EMBER_VEC_MATH1(tanh, tanh, _u10)
EMBER_VEC_MATH1(erf, erf, _u10)
EMBER_VEC_MATH1(erfc, erfc, _u15)
EMBER_VEC_MATH1(sqrt, sqrt, _u05)
EMBER_VEC_MATH2(pow, pow, _u10)
EMBER_VEC_MATH2(atan2, atan2, _u10)
// Exact rounding functions (no accuracy suffix in SLEEF's names).
#define EMBER_VEC_ROUND(name, fn)                                                         \
  inline Vec<float> name(Vec<float> x) { return Vec<float>(EMBER_SLEEF_F(fn, )(x.v)); }  \
  inline Vec<double> name(Vec<double> x) { return Vec<double>(EMBER_SLEEF_D(fn, )(x.v)); }
EMBER_VEC_ROUND(floor, floor)
EMBER_VEC_ROUND(ceil, ceil)
EMBER_VEC_ROUND(trunc, trunc)
EMBER_VEC_ROUND(nearbyint, rint)  // round half to even, like torch.round
#undef EMBER_VEC_MATH1
#undef EMBER_VEC_MATH2
#undef EMBER_VEC_ROUND

// |x| by clearing the sign bit (keeps NaN payloads, like fabs).
template <class T>
inline Vec<T> abs(Vec<T> x) {
  using M = typename Vec<T>::Mask;
  using I = std::remove_reference_t<decltype(M{}[0])>;
  M bits;
  std::memcpy(&bits, &x.v, sizeof(M));
  bits &= ~(I(1) << (sizeof(I) * 8 - 1));
  Vec<T> r;
  std::memcpy(&r.v, &bits, sizeof(M));
  return r;
}

// Scalars: the same names, from libm, so functors call them unqualified.
using std::abs, std::ceil, std::floor, std::nearbyint, std::trunc, std::acos, std::asin, std::atan, std::atan2, std::cos, std::cosh, std::erf,
    std::erfc, std::exp, std::exp2, std::expm1, std::log, std::log10, std::log1p, std::log2,
    std::pow, std::sin, std::sinh, std::sqrt, std::tan, std::tanh;

}  // namespace EMBER_CPU_NS
