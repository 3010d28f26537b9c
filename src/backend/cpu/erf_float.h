// A float32 erf, fast in SIMD: Norbert Juffa's minimax approximation (max error 0.994 ulp over
// all floats, against the double erf), an odd polynomial for |x| <= 0.9277 and 1 - exp(poly)
// beyond. SLEEF's erff_u10 reaches the same accuracy through double-float arithmetic at about
// four times the cost; this keeps erf and exact gelu as cheap as exp (memory bound).
// The scalar overload runs the same steps, so SIMD bodies, tails and strided runs agree.
#pragma once

#include "backend/cpu/exp_float.h"
#include "backend/cpu/level.h"

namespace EMBER_CPU_NS {

template <class V>  // float or Vec<float>
inline V erf_float(V a) {
  const V t = cpu::abs(a), s = a * a;
  // |a| > 0.927734375: erf = sign(a) * (1 - exp(p(t))), p(t) ~ -t^2 - ...
  V r = fma_f(V(-1.72853470e-5f), t, V(3.83197126e-4f));
  const V u = fma_f(V(-3.88396438e-3f), t, V(2.42546219e-2f));
  r = fma_f(r, s, u);
  r = fma_f(r, t, V(-1.06777877e-1f));
  r = fma_f(r, t, V(-6.34846687e-1f));
  r = fma_f(r, t, V(-1.28717512e-1f));
  r = fma_f(r, t, -t);
  V big = V(1.0f) - exp_float(r);
  big = select(lt(a, V(0.0f)), -big, big);
  // |a| <= 0.927734375 (and NaN): erf = a + a * q(a^2)
  V q = fma_f(V(-5.96761703e-4f), s, V(4.99119423e-3f));
  q = fma_f(q, s, V(-2.67681349e-2f));
  q = fma_f(q, s, V(1.12819925e-1f));
  q = fma_f(q, s, V(-3.76125336e-1f));
  q = fma_f(q, s, V(1.28379166e-1f));
  const V small = fma_f(q, a, a);
  return select(gt(t, V(0.927734375f)), big, small);
}

}  // namespace EMBER_CPU_NS
