// A float32 erf, fast in SIMD: Norbert Juffa's minimax approximation (max error 0.994 ulp over
// all floats, against the double erf), an odd polynomial for |x| <= 0.9277 and 1 - exp(poly)
// beyond. SLEEF's erff_u10 reaches the same accuracy through double-float arithmetic at about
// four times the cost; this keeps erf and exact gelu as cheap as exp (memory bound).
// The scalar overload runs the same steps, so SIMD bodies, tails and strided runs agree.
#pragma once

#include "backend/cpu/exp_float.h"

namespace ember::cpu {

namespace detail {

// |a| > 0.927734375: erf(a) = sign(a) * (1 - exp(erf_tail_exponent(t))), t = |a|, s = a^2.
template <class V>
inline V erf_tail_exponent(V t, V s) {
  V r = fma_f(V(-1.72853470e-5f), t, V(3.83197126e-4f));
  const V u = fma_f(V(-3.88396438e-3f), t, V(2.42546219e-2f));
  r = fma_f(r, s, u);
  r = fma_f(r, t, V(-1.06777877e-1f));
  r = fma_f(r, t, V(-6.34846687e-1f));
  r = fma_f(r, t, V(-1.28717512e-1f));
  return fma_f(r, t, -t);
}

// |a| <= 0.927734375 (and NaN): erf(a) = fma(erf_core_poly(s), a, a), s = a^2.
template <class V>
inline V erf_core_poly(V s) {
  V q = fma_f(V(-5.96761703e-4f), s, V(4.99119423e-3f));
  q = fma_f(q, s, V(-2.67681349e-2f));
  q = fma_f(q, s, V(1.12819925e-1f));
  q = fma_f(q, s, V(-3.76125336e-1f));
  q = fma_f(q, s, V(1.28379166e-1f));
  return q;
}

inline constexpr float kErfCore = 0.927734375f;

}  // namespace detail

template <class V>  // float or Vec<float>
inline V erf_float(V a) {
  const V t = cpu::abs(a), s = a * a;
  V big = V(1.0f) - exp_float(detail::erf_tail_exponent(t, s));
  big = select(lt(a, V(0.0f)), -big, big);
  const V small = fma_f(detail::erf_core_poly(s), a, a);
  return select(gt(t, V(detail::kErfCore)), big, small);
}

/// 1 + erf(a), as exact gelu needs it (0.5 x (1 + erf(x / sqrt 2))): where erf(a) is near -1
/// the tail is exp(p) itself instead of 1 - (1 - exp(p)), which keeps gelu's relative accuracy
/// for negative x (erf_float first would leave 1 + erf with an error of 2^-24 absolute) and
/// saves the sign flip.
template <class V>  // float or Vec<float>
inline V erf1p_float(V a) {
  const V t = cpu::abs(a), s = a * a;
  const V e = exp_float(detail::erf_tail_exponent(t, s));
  const V big = select(lt(a, V(0.0f)), e, V(2.0f) - e);
  const V small = V(1.0f) + fma_f(detail::erf_core_poly(s), a, a);
  return select(gt(t, V(detail::kErfCore)), big, small);
}

}  // namespace ember::cpu
