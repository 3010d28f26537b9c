// The inline float gelus of backend/cpu/gelu_float.h (exact and tanh) against their formulas in
// double (std::erfc, std::tanh) over a dense sweep of floats, the vector and scalar overloads bit
// for bit, the interval boundaries of the piecewise polynomial, and the special values (PyTorch's
// results). Compiled for the test's ISA, not the library's: without FMA each step rounds twice.
#include "backend/cpu/gelu_float.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <vector>

#include "float_sweep.h"

namespace ember::cpu {
namespace {

using namespace test_sweep;

double gelu_double(double x) { return x * 0.5 * std::erfc(-x * M_SQRT1_2); }
double gelu_tanh_double(double x) {
  return x * 0.5 * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

// An error in ulp of the result, and in ulp of x: the scale of x * Phi(x) with Phi known to an
// absolute error, the only one that PyTorch's kernels meet for x < 0 (1 + erf(x / sqrt 2) and
// 1 + tanh(y) cancel there; they return -0.0 for x < -5.6 and x < -9).
double result_ulps(float x, float got, double (*want)(double)) {
  return std::fabs(double(got) - want(x)) / ulp_of(want(x));
}
double x_ulps(float x, float got, double (*want)(double)) {
  return std::fabs(double(got) - want(x)) / ulp_of(x);
}

// The largest errors over every 509th float in [-12, 12] (outside, gelu is x or -0.0: see the
// special values): for x > 0 in ulp of the result, for x <= 0 in ulp of x, and for x in [-3, 0]
// in ulp of the result. Fails at the first x where the vector and the scalar overload differ.
struct Worst {
  double positive = 0, negative = 0, moderate = 0;
};
template <class F>
Worst worst_errors(const F& f, double (*want)(double)) {
  Worst w;
  sweep(-12.0f, 12.0f, 509, f, [&](float x, float v, float s) {
    ASSERT_EQ(std::memcmp(&v, &s, 4), 0) << "vector and scalar differ at " << x;
    if (x > 0) w.positive = std::max(w.positive, result_ulps(x, v, want));
    else w.negative = std::max(w.negative, x_ulps(x, v, want));
    if (x <= 0 && x >= -3) w.moderate = std::max(w.moderate, result_ulps(x, v, want));
  });
  return w;
}

// No FMA (kSlack): each polynomial step rounds twice, which the moderate range feels the most.
void expect_within(const Worst& w, const Worst& bound) {
  EXPECT_LE(w.positive, bound.positive + kSlack);
  EXPECT_LE(w.negative, bound.negative + kSlack);
  EXPECT_LE(w.moderate, bound.moderate + 4 * kSlack);
}

struct Special {
  float x, want;
};
const float kInf = std::numeric_limits<float>::infinity(), kNaN = std::nanf("");
// Both gelus, as PyTorch 1.13's: gelu(-inf) is nan (-inf * 0), a large negative x gives -0.0.
const std::vector<Special> kCommonSpecials = {{kInf, kInf},   {-kInf, kNaN},  {kNaN, kNaN},
                                              {0.0f, 0.0f},   {-0.0f, -0.0f}, {1e30f, 1e30f},
                                              {-1e30f, -0.0f}};

// f(x) through the vector and the scalar overload: any NaN where `want` is NaN, else its bits.
template <class F>
void expect_specials(const F& f, std::vector<Special> cases) {
  cases.insert(cases.end(), kCommonSpecials.begin(), kCommonSpecials.end());
  for (const Special c : cases) {
    alignas(64) float xs[W], ys[W];
    for (float& e : xs) e = c.x;
    f(VF::load(xs)).store(ys);
    for (const float got : {ys[0], f(c.x)}) {
      if (std::isnan(c.want)) EXPECT_TRUE(std::isnan(got)) << c.x;
      else EXPECT_EQ(std::memcmp(&got, &c.want, 4), 0) << c.x << ": got " << got;
    }
  }
}

const auto kGelu = [](auto x) { return gelu_float(x); };
const auto kGeluTanh = [](auto x) { return gelu_tanh_float(x); };

TEST(GeluFloat, CloseToTheDoubleValueAndVectorMatchesScalar) {
  // Measured with every 61st float: 1.11 / 0.63 / 6.0. PyTorch 1.13 (ATen): 1.65 ulp of the
  // result for x > 0, 0.75 ulp of x and 101 ulp of the result for x in [-3, 0].
  expect_within(worst_errors(kGelu, gelu_double), {1.2, 0.7, 7.0});
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
        if (x > 0) EXPECT_LE(result_ulps(x, s, gelu_double), 1.2 + kSlack) << x;
        else EXPECT_LE(x_ulps(x, s, gelu_double), 0.7 + kSlack) << x;
      }
    }
}

TEST(GeluFloat, SpecialValuesAsPyTorch) {
  const float tiny = std::numeric_limits<float>::denorm_min() * 6;
  // gelu(-6) = -0.0 in PyTorch (the double value is -5.9e-9); here from x < -5.5.
  expect_specials(kGelu, {{-6.0f, -0.0f}, {12.5f, 12.5f}, {tiny, tiny / 2}, {-tiny, -tiny / 2}});
}

TEST(GeluTanhFloat, CloseToTheDoubleValueAndVectorMatchesScalar) {
  // Measured with every 61st float: 1.85 / 0.99 / 11.5. PyTorch 1.13 (0.5 x (1 + tanh(y)) with
  // SLEEF's tanh): 1.74 / 0.88 / 201.
  expect_within(worst_errors(kGeluTanh, gelu_tanh_double), {2.0, 1.0, 13.0});
}

TEST(GeluTanhFloat, SpecialValuesAsPyTorch) {
  // -0.0 in PyTorch where tanh(y) rounds to -1 (x < -9), here where exp(-2y) overflows (x < -10).
  expect_specials(kGeluTanh, {{20.0f, 20.0f}, {-20.0f, -0.0f}});
}

}  // namespace
}  // namespace ember::cpu
