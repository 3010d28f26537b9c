// A float32 exp that inlines into a kernel's loop: Cody-Waite reduction by ln 2 and a degree-7
// polynomial on [-ln2/2, ln2/2] (Cephes expf's coefficients), evaluated with fused multiply-adds.
// Within 1 ulp of the double exp over all floats (tests/backend/cpu/exp_float_test.cpp sweeps
// them), as SLEEF's expf_u10; but SLEEF's is an out-of-line library call with its own range
// checks, which made sigmoid, silu and exact gelu (through erf_float.h) compute bound at 8 lanes.
// The scalar overload runs the same steps, so SIMD bodies, tails and strided runs agree.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__AVX512F__) || defined(__FMA__)
#include <immintrin.h>
#endif

#include "backend/cpu/level.h"
#include "backend/cpu/vec.h"

namespace EMBER_CPU_NS {

// Fused multiply-add (one rounding, as the approximations' error bounds assume) where the ISA
// has it. Without FMA both overloads round twice (a * b + c: nothing to contract it into):
// std::fma would be a slow exact library call there, and the scalar path would no longer agree
// with the vector one bit for bit.
inline float fma_f(float a, float b, float c) {
#if defined(__FMA__) || defined(__AVX512F__)
  return std::fma(a, b, c);
#else
  return a * b + c;
#endif
}
inline Vec<float> fma_f(Vec<float> a, Vec<float> b, Vec<float> c) {
#if defined(__AVX512F__)
  return Vec<float>(vfloat_t(_mm512_fmadd_ps(__m512(a.v), __m512(b.v), __m512(c.v))));
#elif defined(__AVX__) && defined(__FMA__)
  return Vec<float>(vfloat_t(_mm256_fmadd_ps(__m256(a.v), __m256(b.v), __m256(c.v))));
#elif defined(__FMA__)
  return Vec<float>(vfloat_t(_mm_fmadd_ps(__m128(a.v), __m128(b.v), __m128(c.v))));
#else
  return a * b + c;
#endif
}

namespace detail {

// y * 2^n for integral n in [-150, 128], in two factors that each stay in the normal range, so a
// subnormal result (n < -126) is rounded once, by the last multiply, and n = 128 can still give a
// finite result for y < 1. The factors are built from their exponent bits.
inline float ldexp2(float y, float n) {
  const int32_t k = int32_t(n), h = k >> 1;
  const int32_t b1 = (h + 127) << 23, b2 = (k - h + 127) << 23;
  float f1, f2;
  std::memcpy(&f1, &b1, sizeof(f1));
  std::memcpy(&f2, &b2, sizeof(f2));
  return y * f1 * f2;
}
inline Vec<float> ldexp2(Vec<float> y, Vec<float> n) {
#if defined(__AVX512F__)
  // vscalefps: y * 2^n rounded once, overflow and subnormal results included, so the same bits
  // as the two factors below (checked over every float) in one instruction instead of eight:
  // exp_16M at one thread on a Zen 5 4.3 -> 3.1-3.4 ms, as fast as SLEEF's expf16 was.
  // (zero-masked with every lane on: the unmasked intrinsic's undefined source makes GCC 12 warn)
  return Vec<float>(vfloat_t(_mm512_maskz_scalef_ps(__mmask16(0xFFFF), __m512(y.v), __m512(n.v))));
#else
  const vint32_t k = __builtin_convertvector(n.v, vint32_t), h = k >> 1;
  const vint32_t b1 = (h + 127) << 23, b2 = (k - h + 127) << 23;
  Vec<float> f1, f2;
  std::memcpy(&f1.v, &b1, sizeof(b1));
  std::memcpy(&f2.v, &b2, sizeof(b2));
  return y * f1 * f2;
#endif
}

// Round to nearest integer (ties to even) for |x| < 2^22: adding 1.5 * 2^23 leaves no fraction
// bits, so the addition itself rounds. Cheaper than a call, and the same in both overloads.
template <class V>
inline V round_small(V x) {
  const V magic(12582912.0f);
  return (x + magic) - magic;
}

}  // namespace detail

template <class V>  // float or Vec<float>
inline V exp_float(V x) {
  if constexpr (std::is_same_v<V, float>)
    if (x != x) return x;  // (the vector path carries NaN through the arithmetic below)
  // Beyond these the result is inf or 0 (x > 88.73 overflows; x < -103.98 is below half the
  // smallest subnormal); clamping keeps n inside ldexp2's range. Written so that NaN passes
  // through (no comparison holds), which lets the vector path go without a final select.
  V xc = select(lt(x, V(-104.0f)), V(-104.0f), x);
  xc = select(gt(xc, V(89.0f)), V(89.0f), xc);
  const V n = detail::round_small(xc * V(1.44269504088896341f));  // x / ln 2
  // r = x - n ln 2 in two parts (ln2_hi has 9 significant bits, so n * ln2_hi is exact).
  V r = fma_f(n, V(-0.693359375f), xc);
  r = fma_f(n, V(2.12194440e-4f), r);
  V p = fma_f(V(1.9875691500e-4f), r, V(1.3981999507e-3f));
  p = fma_f(p, r, V(8.3334519073e-3f));
  p = fma_f(p, r, V(4.1665795894e-2f));
  p = fma_f(p, r, V(1.6666665459e-1f));
  p = fma_f(p, r, V(5.0000001201e-1f));
  return detail::ldexp2(fma_f(p, r * r, r) + V(1.0f), n);
}

/// exp in a functor's compute type: exp_float for float (and for half types, computed in float),
/// SLEEF or libm for double.
template <class V>
inline V exp_fast(V x) {
  if constexpr (std::is_same_v<V, float> || std::is_same_v<V, Vec<float>>) return exp_float(x);
  else return cpu::exp(x);
}

}  // namespace EMBER_CPU_NS
