// Sweeps of float inputs for the tests of the inline float approximations (exp_float.h,
// erf_float.h, gelu_float.h): every step-th bit pattern of a range, evaluated through the vector
// and the scalar overload, so a test can check both against a double reference and each other.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "backend/cpu/vec.h"

namespace ember::cpu::test_sweep {

using VF = Vec<float>;
constexpr int W = VF::size;
constexpr uint32_t kStep = 2039;
#if defined(__FMA__) || defined(__AVX512F__)
constexpr double kSlack = 0;
#else
constexpr double kSlack = 1;
#endif

// ulp of a double reference rounded to float (subnormal results: the subnormal spacing).
inline double ulp_of(double e) {
  int exponent;
  std::frexp(std::max(std::fabs(e), double(std::numeric_limits<float>::min())), &exponent);
  return std::ldexp(1.0, exponent - 24);
}

inline float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

// Calls check(x, vector result, scalar result) on every `step`-th float between lo and hi
// (bit patterns of one sign), evaluated W at a time.
template <class F, class Check>
void sweep(float lo, float hi, uint32_t step, const F& f, const Check& check) {
  for (const float sign : {1.0f, -1.0f}) {
    uint32_t a, b;
    const float from = sign > 0 ? std::max(lo, 0.0f) : std::max(-hi, 0.0f);
    const float to = sign > 0 ? std::max(hi, 0.0f) : std::max(-lo, 0.0f);
    std::memcpy(&a, &from, 4);
    std::memcpy(&b, &to, 4);
    for (uint64_t u = a; u <= b; u += uint64_t(step) * W) {
      alignas(64) float xs[W], ys[W];
      for (int k = 0; k < W; ++k)
        xs[k] = sign * from_bits(uint32_t(std::min<uint64_t>(u + uint64_t(k) * step, b)));
      f(VF::load(xs)).store(ys);
      for (int k = 0; k < W; ++k) check(xs[k], ys[k], f(xs[k]));
    }
  }
}

}  // namespace ember::cpu::test_sweep
