// Shared by indexing_test.cpp and sort_test.cpp: reads golden/indexing.json (written by
// golden/gen_indexing.py) and compares results with PyTorch's entries by name.
#pragma once

#include <ember/ember.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "test_support.h"

namespace indexing_golden {

using ember::Tensor;

inline const nlohmann::json& data() {
  static const nlohmann::json j = ember::test::load_golden("indexing.json");
  return j;
}

/// The golden tensor called `name`.
inline Tensor load(const std::string& name) { return ember::test::golden_tensor(data().at(name)); }

/// Same dtype, shape and values (NaN equal to NaN; floats to a relative 1e-6).
inline ::testing::AssertionResult matches(const Tensor& actual, const std::string& name) {
  if (!data().contains(name)) return ::testing::AssertionFailure() << "no golden entry " << name;
  const Tensor want = load(name);
  if (actual.dtype() != want.dtype())
    return ::testing::AssertionFailure()
           << name << ": dtype " << actual.dtype() << ", want " << want.dtype();
  if (actual.sizes() != want.sizes())
    return ::testing::AssertionFailure()
           << name << ": shape " << actual.sizes() << ", want " << want.sizes();
  const double rtol = actual.is_floating_point() ? 1e-6 : 0.0;
  const std::string bad = ember::test::mismatches(
      actual.to(ember::kFloat64).tolist<double>(), want.to(ember::kFloat64).tolist<double>(),
      [&](double a, double b) { return std::abs(a - b) <= rtol * std::max(1.0, std::abs(b)); }, 1);
  if (!bad.empty())
    return ::testing::AssertionFailure() << name << ": " << bad << "\n got " << actual;
  return ::testing::AssertionSuccess();
}

/// (values, indices) against name/values and name/indices.
inline ::testing::AssertionResult matches_pair(const std::tuple<Tensor, Tensor>& vi,
                                               const std::string& name) {
  auto r = matches(std::get<0>(vi), name + "/values");
  if (!r) return r;
  return matches(std::get<1>(vi), name + "/indices");
}

}  // namespace indexing_golden

#define EXPECT_GOLDEN(actual, name) EXPECT_TRUE(::indexing_golden::matches((actual), (name)))
#define EXPECT_GOLDEN_PAIR(actual, name) \
  EXPECT_TRUE(::indexing_golden::matches_pair((actual), (name)))
