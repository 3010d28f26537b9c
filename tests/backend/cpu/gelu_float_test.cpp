// The inline float gelus of backend/cpu/gelu_float.h (exact and tanh) against their formulas in
// double (std::erfc, std::tanh) over a dense sweep of floats, the vector and scalar overloads bit for bit, the
// interval boundaries of its piecewise polynomial, and the special values (PyTorch's results).
// Compiled for the test's ISA, not the library's: without FMA each step rounds twice (kSlack).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "backend/cpu/gelu_float.h"
#include "float_sweep.h"

namespace ember::cpu {
namespace {

using namespace test_sweep;

double gelu_double(double x) { return x * 0.5 * std::erfc(-x * M_SQRT1_2); }

// The error of gelu_float(x) in ulp of the result and in ulp of x: the second is the scale of
// x * Phi(x) with Phi known to an absolute error, the only one that PyTorch's kernels meet for
// x < 0 (1 + erf(x / sqrt 2) cancels there; they return -0.0 for x < -5.6).
struct Errors {
  double result_ulps, x_ulps;
};
Errors errors(float x, float got) {
  const double want = gelu_double(x), err = std::fabs(double(got) - want);
  return {err / ulp_of(want), err / ulp_of(x)};
}

// Every 509th float in [-12, 12]; outside, gelu is x or -0.0 (checked below).
TEST(GeluFloat, CloseToTheDoubleValueAndVectorMatchesScalar) {
  double positive = 0, negative = 0, moderate = 0;
  sweep(-12.0f, 12.0f, 509, [](auto x) { return gelu_float(x); }, [&](float x, float v, float s) {
    ASSERT_EQ(std::memcmp(&v, &s, 4), 0) << "vector and scalar differ at " << x;
    const Errors e = errors(x, v);
    if (x > 0) positive = std::max(positive, e.result_ulps);
    else negative = std::max(negative, e.x_ulps);
    if (x <= 0 && x >= -3) moderate = std::max(moderate, e.result_ulps);
  });
  // Measured with every 61st float: 1.11 / 0.63 / 6.0. PyTorch 1.13 (ATen): 1.65 ulp of the
  // result for x > 0, 0.75 ulp of x and 101 ulp of the result for x in [-3, 0].
  EXPECT_LE(positive, 1.2 + kSlack);
  EXPECT_LE(negative, 0.7 + kSlack);
  EXPECT_LE(moderate, 7.0 + 4 * kSlack);
}

// Either side of each interval boundary k * 0.6875 (where the polynomial changes) and of the
// saturation point 5.5.
TEST(GeluFloat, ContinuousAtTheIntervalBoundaries) {
  for (int k = 1; k <= 8; ++k)
    for (const float sign : {1.0f, -1.0f}) {
      const float edge = sign * k * detail::kGeluStep;
      for (const float x : {std::nextafter(edge, 0.0f), edge, std::nextafter(edge, 2 * edge)}) {
        alignas(64) float xs[W], ys[W];
        for (float& e : xs) e = x;
        gelu_float(VF::load(xs)).store(ys);
        const float s = gelu_float(x);
        ASSERT_EQ(std::memcmp(&ys[0], &s, 4), 0) << "vector and scalar differ at " << x;
        const Errors e = errors(x, s);
        if (x > 0) EXPECT_LE(e.result_ulps, 1.2 + kSlack) << x;
        else EXPECT_LE(e.x_ulps, 0.7 + kSlack) << x;
      }
    }
}

TEST(GeluFloat, SpecialValuesAsPyTorch) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  const float tiny = std::numeric_limits<float>::denorm_min() * 6;
  struct Case {
    float x, want;
  };
  // PyTorch 1.13: gelu(-inf) = nan (-inf * 0), gelu(-6) = -0.0 (the double value is -5.9e-9).
  for (const Case c : {Case{inf, inf}, Case{-inf, nan}, Case{nan, nan}, Case{0.0f, 0.0f},
                       Case{-0.0f, -0.0f}, Case{1e30f, 1e30f}, Case{-1e30f, -0.0f},
                       Case{-6.0f, -0.0f}, Case{12.5f, 12.5f}, Case{tiny, tiny / 2},
                       Case{-tiny, -tiny / 2}}) {
    alignas(64) float xs[W], ys[W];
    for (float& e : xs) e = c.x;
    gelu_float(VF::load(xs)).store(ys);
    for (const float got : {ys[0], gelu_float(c.x)}) {
      if (std::isnan(c.want)) EXPECT_TRUE(std::isnan(got)) << c.x;
      else EXPECT_EQ(std::memcmp(&got, &c.want, 4), 0) << c.x << ": got " << got;
    }
  }
}

// gelu_tanh_float against 0.5 x (1 + tanh(y)) in double, y = sqrt(2 / pi) (x + 0.044715 x^3).
TEST(GeluTanhFloat, CloseToTheDoubleValueAndVectorMatchesScalar) {
  double positive = 0, negative = 0, moderate = 0;
  const auto f = [](auto x) { return gelu_tanh_float(x); };
  sweep(-12.0f, 12.0f, 509, f, [&](float x, float v, float s) {
    ASSERT_EQ(std::memcmp(&v, &s, 4), 0) << "vector and scalar differ at " << x;
    const double xd = x, y = 0.7978845608028654 * (xd + 0.044715 * xd * xd * xd);
    const double want = xd * 0.5 * (1 + std::tanh(y)), err = std::fabs(double(v) - want);
    if (x > 0) positive = std::max(positive, err / ulp_of(want));
    else negative = std::max(negative, err / ulp_of(x));
    if (x <= 0 && x >= -3) moderate = std::max(moderate, err / ulp_of(want));
  });
  // Measured with every 61st float: 1.85 / 0.99 / 11.5. PyTorch 1.13 (0.5 x (1 + tanh(y)) with
  // SLEEF's tanh): 1.74 / 0.88 / 201.
  EXPECT_LE(positive, 2.0 + kSlack);
  EXPECT_LE(negative, 1.0 + kSlack);
  EXPECT_LE(moderate, 13.0 + 4 * kSlack);
}

TEST(GeluTanhFloat, SpecialValuesAsPyTorch) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  struct Case {
    float x, want;
  };
  // PyTorch 1.13: -0.0 where tanh(y) rounds to -1 (x < -9; here where exp(-2y) overflows, x < -10)
  // and nan for -inf (-inf * 0).
  for (const Case c : {Case{inf, inf}, Case{-inf, nan}, Case{nan, nan}, Case{0.0f, 0.0f},
                       Case{-0.0f, -0.0f}, Case{1e30f, 1e30f}, Case{-1e30f, -0.0f},
                       Case{20.0f, 20.0f}, Case{-20.0f, -0.0f}}) {
    alignas(64) float xs[W], ys[W];
    for (float& e : xs) e = c.x;
    gelu_tanh_float(VF::load(xs)).store(ys);
    for (const float got : {ys[0], gelu_tanh_float(c.x)}) {
      if (std::isnan(c.want)) EXPECT_TRUE(std::isnan(got)) << c.x;
      else EXPECT_EQ(std::memcmp(&got, &c.want, 4), 0) << c.x << ": got " << got;
    }
  }
}

}  // namespace
}  // namespace ember::cpu
