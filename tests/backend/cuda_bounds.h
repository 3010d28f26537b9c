// What the emulated-kernel tests that compare rounded sums share (cuda_norm_plan_test,
// cuda_loss_plan_test): the accumulation type's epsilon, the summation depth of a block's row
// and the check of a result against a bound per element.
//
// A kernel sums a row of n in blocks of `threads`: each thread its share in sequence, then the
// block's tree. A sum of n terms in any such order is within depth * eps * Σ|terms| of the exact
// one, depth = share + log2(threads); +2 covers the CPU's own chunked sums.
#pragma once

#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace ember::cuda::test_bounds {

/// The spacing at 1 of the type `dtype` accumulates in (float32 for the half types).
inline double acc_eps(Dtype dtype) {
  return dtype == kFloat64 ? std::numeric_limits<double>::epsilon()
                           : std::numeric_limits<float>::epsilon();
}

/// The summation depth of a row of n in blocks of `threads` (see above).
inline double depth(int64_t n, uint32_t threads) {
  return std::ceil(double(n) / threads) + std::log2(double(threads)) + 2;
}

inline Tensor f64(const Tensor& t) { return t.to(kFloat64); }

/// |got - want| <= tol everywhere (compared in float64).
inline void expect_within(const Tensor& got, const Tensor& want, const Tensor& tol,
                          const std::string& what) {
  const Tensor err = (f64(got) - f64(want)).abs();
  EXPECT_TRUE((err <= tol).all().item<bool>())
      << what << ": worst excess " << (err - tol).max().item<double>() << "\ngot " << got
      << "\nwant " << want;
}

}  // namespace ember::cuda::test_bounds
