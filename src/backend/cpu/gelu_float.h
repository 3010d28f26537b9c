// Exact gelu for float32, x * Phi(x), without exp or erf: Phi(-|x|) from one degree-7 polynomial
// per interval of 0.6875 on [0, 5.5) (8 intervals, coefficients picked per lane by a register
// permute), 0 beyond; gelu = x * (x > 0 ? 1 - Phi(-|x|) : Phi(-|x|)). Note [Fast gelu] says why.
// The scalar overload runs the same steps, so SIMD bodies, tails and strided runs agree.
#pragma once

#include <cstdint>
#include <iterator>
#include <type_traits>

#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "backend/cpu/exp_float.h"
#include "backend/cpu/level.h"
#include "backend/cpu/vec.h"

namespace EMBER_CPU_NS {

// Note [Fast gelu]
// gelu through 0.5 * x * (1 + erf(x / sqrt 2)) costs an erf, i.e. two polynomials and an exp on
// every lane (erf_float.h), about twice exp's time, and it adds a cancellation of its own: where
// erf nears -1, 1 + erf keeps a few bits (PyTorch's kernels have the same; it returns -0.0 for
// x < -5.6 where the value is ~ -6e-8). Here the normal tail Phi(-t), t = |x|, is approximated
// directly, to an absolute error of 6.6e-9 (2^-27.2), by a polynomial in
// u = t - k * 0.6875 on interval k (u is exact: Sterbenz). Eight intervals fit one AVX2 register
// per coefficient, so picking a lane's coefficients is one vpermps each: 8 permutes and 7 FMAs
// with no exp, division or branch. Measured error (tests/backend/cpu/gelu_float_test.cpp):
// within 1.1 ulp of the result for x > 0 and 0.63 ulp of x for x < 0 (6 ulp of the result for
// x in [-3, 0]), where PyTorch 1.13 is within 1.65 ulp of the result and 0.75 ulp of x (101 ulp of
// the result) through ATen's kernels, 8.8 ulp of the result and 4.7 ulp of x through oneDNN's
// (which 1.13 uses for contiguous float tensors). Coefficients: scripts/fit_normal_tail.py.
namespace detail {

inline constexpr float kGeluStep = 0.6875f, kGeluInvStep = 1.0f / 0.6875f;
inline constexpr float kGeluTailEnd = 8 * 0.6875f;  // Phi(-5.5) = 1.9e-8: 0 beyond, <= 0.2 ulp(x)

// kNormalTail[j][k]: the coefficient of u^j on interval k (t in [0.6875 k, 0.6875 (k + 1))).
alignas(32) inline constexpr float kNormalTail[][8] = {
    {5.000000000e-01f, 2.458838522e-01f, 8.456572145e-02f, 1.958007924e-02f, 2.979763318e-03f,
     2.935553784e-04f, 1.853673166e-05f, 7.452684372e-07f},
    {-3.989423513e-01f, -3.149735630e-01f, -1.550122201e-01f, -4.755389318e-02f, -9.093573317e-03f,
     -1.083952026e-03f, -8.053952479e-05f, -3.730147000e-06f},
    {2.403397502e-06f, 1.082731187e-01f, 1.065693572e-01f, 4.903997108e-02f, 1.250398159e-02f,
     1.863043755e-03f, 1.660860144e-04f, 8.970643648e-06f},
    {6.646315753e-02f, 2.767116018e-02f, -2.299122326e-02f, -2.578927390e-02f, -9.950034320e-03f,
     -1.954124076e-03f, -2.146450861e-04f, -1.371171766e-05f},
    {1.499729115e-04f, -2.272831835e-02f, -9.957652539e-03f, 5.121932365e-03f, 4.777049180e-03f,
     1.369288075e-03f, 1.920392242e-04f, 1.468636219e-05f},
    {-1.041332074e-02f, -1.276651281e-03f, 6.487605162e-03f, 1.771323616e-03f, -1.196309342e-03f,
     -6.506350474e-04f, -1.215161537e-04f, -1.114358020e-05f},
    {6.808244507e-04f, 3.674418665e-03f, -6.551037659e-04f, -1.341962605e-03f, 1.200413772e-05f,
     1.967539865e-04f, 5.075736772e-05f, 5.488690476e-06f},
    {7.203710265e-04f, -7.694750675e-04f, -2.351734729e-04f, 2.696525771e-04f, 5.614788097e-05f,
     -2.941048479e-05f, -1.062363299e-05f, -1.311527740e-06f},
};

// row[k] per lane: one permute where the ISA has a variable one (k is always in [0, 8)).
inline float lookup8(const float (&row)[8], int32_t k) { return row[k]; }
inline Vec<float> lookup8(const float (&row)[8], vint32_t k) {
#if defined(__AVX512F__)
  // Both zero-masked: the plain forms' undefined pass-through (and a cast that leaves the upper
  // half undefined) make GCC 12 warn -Wmaybe-uninitialized once gelu is inlined into a loop.
  const __m512 table = _mm512_maskz_loadu_ps(0x00ff, row);  // the upper half zero, unused
  return Vec<float>(vfloat_t(_mm512_maskz_permutexvar_ps(0xffff, __m512i(k), table)));
#elif defined(__AVX2__)
  return Vec<float>(vfloat_t(_mm256_permutevar8x32_ps(_mm256_load_ps(row), __m256i(k))));
#else
  Vec<float> r;
  for (int i = 0; i < Vec<float>::size; ++i) r.v[i] = row[k[i]];
  return r;
#endif
}

inline int32_t truncate_to_int(float x) { return int32_t(x); }
inline vint32_t truncate_to_int(Vec<float> x) { return __builtin_convertvector(x.v, vint32_t); }
inline float to_float(int32_t k) { return float(k); }
inline Vec<float> to_float(vint32_t k) { return __builtin_convertvector(k, vfloat_t); }

}  // namespace detail

template <class V>  // float or Vec<float>
inline V gelu_float(V x) {
  using detail::kNormalTail;
  const V t = cpu::abs(x);
  // NaN and t >= 5.5 take interval 0 and a tail of 0 (so gelu(inf) = inf, gelu(-inf) = NaN and
  // gelu(NaN) = NaN, as PyTorch's); this also keeps the scalar table index in range.
  const auto inside = lt(t, V(detail::kGeluTailEnd));
  const V tc = select(inside, t, V(0.0f));
  const auto k = detail::truncate_to_int(tc * V(detail::kGeluInvStep));
  const V u = fma_f(detail::to_float(k), V(-detail::kGeluStep), tc);  // exact: k * step has 4 bits
  constexpr int kDegree = int(std::size(kNormalTail)) - 1;
  V p = detail::lookup8(kNormalTail[kDegree], k);
  for (int j = kDegree - 1; j >= 0; --j) p = fma_f(p, u, V(detail::lookup8(kNormalTail[j], k)));
  p = select(inside, p, V(0.0f));
  // x > 0: x - x Phi(-x) in one rounding; tc is 0 outside, so gelu(inf) is inf, not inf - inf.
  return select(gt(x, V(0.0f)), fma_f(-tc, p, x), x * p);
}

/// gelu(x, approximate = "tanh") for float32: 0.5 x (1 + tanh(y)) is x * sigmoid(2 y), computed
/// as x / (1 + exp(-2 y)), y = sqrt(2 / pi) (x + 0.044715 x^3): one exp and a division instead of
/// SLEEF's tanh (4 times the exact gelu's time), and no cancellation where tanh(y) nears -1.
template <class V>  // float or Vec<float>
inline V gelu_tanh_float(V x) {
  constexpr float kTwoK = -2 * 0.7978845608028654f, kTwoKC = kTwoK * 0.044715f;
  return x / (V(1.0f) + exp_float(x * fma_f(V(kTwoKC), x * x, V(kTwoK))));
}

}  // namespace EMBER_CPU_NS
