// The inline float exp and erf of backend/cpu/exp_float.h and erf_float.h against the double
// functions over a sweep of floats (every 2039th bit pattern of the ranges that matter; the
// library's figures in the comments are from a sweep of every 127th), the vector and scalar
// overloads bit for bit, and the special values. This file is compiled for the test's ISA, not
// the library's: without FMA the approximations round twice per step, hence kSlack.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "backend/cpu/erf_float.h"

namespace ember::cpu {
namespace {

using VF = Vec<float>;
constexpr int W = VF::size;
constexpr uint32_t kStep = 2039;
#if defined(__FMA__) || defined(__AVX512F__)
constexpr double kSlack = 0;
#else
constexpr double kSlack = 1;
#endif

// ulp of a double reference rounded to float (subnormal results: the subnormal spacing).
double ulp_of(double e) {
  int exponent;
  std::frexp(std::max(std::fabs(e), double(std::numeric_limits<float>::min())), &exponent);
  return std::ldexp(1.0, exponent - 24);
}

float from_bits(uint32_t u) {
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
      for (int k = 0; k < W; ++k) xs[k] = sign * from_bits(uint32_t(std::min<uint64_t>(u + uint64_t(k) * step, b)));
      f(VF::load(xs)).store(ys);
      for (int k = 0; k < W; ++k) check(xs[k], ys[k], f(xs[k]));
    }
  }
}

TEST(ExpFloat, WithinOneUlpOfTheDoubleExp) {
  double worst = 0;
  sweep(-104.0f, 89.0f, kStep, [](auto x) { return exp_float(x); }, [&](float x, float v, float s) {
    ASSERT_EQ(std::memcmp(&v, &s, 4), 0) << "vector and scalar differ at " << x;
    const double e = std::exp(double(x));
    if (e > double(std::numeric_limits<float>::max())) {
      ASSERT_EQ(v, std::numeric_limits<float>::infinity()) << x;
      return;
    }
    worst = std::max(worst, std::fabs(double(v) - e) / ulp_of(e));
  });
  EXPECT_LE(worst, 1.0 + kSlack);  // measured 0.988 (SLEEF's expf_u10: 0.960)
}

TEST(ExpFloat, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  for (const float x : {nan, inf, -inf, 0.0f, -0.0f, 88.8f, -120.0f, 1e30f, -1e30f}) {
    alignas(64) float xs[W], ys[W];
    for (float& e : xs) e = x;
    exp_float(VF::load(xs)).store(ys);
    const float expected = std::exp(x);
    for (const float got : {ys[0], exp_float(x)}) {
      if (std::isnan(expected)) EXPECT_TRUE(std::isnan(got)) << x;
      else EXPECT_EQ(got, expected) << x;
    }
  }
}

TEST(ErfFloat, WithinOneUlpOfTheDoubleErf) {
  double worst = 0;
  sweep(-5.0f, 5.0f, kStep, [](auto x) { return erf_float(x); }, [&](float x, float v, float s) {
    ASSERT_EQ(std::memcmp(&v, &s, 4), 0) << "vector and scalar differ at " << x;
    const double e = std::erf(double(x));
    worst = std::max(worst, std::fabs(double(v) - e) / ulp_of(e));
  });
  EXPECT_LE(worst, 1.0 + kSlack);  // measured 0.979
}

}  // namespace
}  // namespace ember::cpu
