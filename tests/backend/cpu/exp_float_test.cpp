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
#include "float_sweep.h"

namespace ember::cpu {
namespace {

using namespace test_sweep;

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
