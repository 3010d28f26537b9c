// Shared by conv_test.cpp and pool_test.cpp: reads golden/conv.json (written by
// golden/gen_conv.py), builds its tensor specs, and compares results with PyTorch's.
#pragma once

#include <gtest/gtest.h>

#include <ember/ember.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_support.h"

namespace conv_golden {

using json = nlohmann::json;
using ember::Tensor;
namespace F = ember::nn::functional;
using ember::test::golden_tensor;

/// The cases of one family: those whose op starts with one of the prefixes.
inline std::vector<json> cases(const std::vector<std::string>& prefixes) {
  static const json all = ember::test::load_golden("conv.json");
  std::vector<json> out;
  for (const json& c : all["cases"]) {
    const std::string op = c["op"];
    for (const auto& p : prefixes)
      if (op.rfind(p, 0) == 0) {
        out.push_back(c);
        break;
      }
  }
  return out;
}

inline std::vector<Tensor> inputs(const json& c) {
  std::vector<Tensor> xs;
  for (const json& s : c["inputs"]) xs.push_back(golden_tensor(s));
  return xs;
}

inline F::IntOrList int_or_list(const json& args, const char* key, F::IntOrList dflt) {
  if (!args.contains(key) || args[key].is_null()) return dflt;
  const json& v = args[key];
  if (v.is_array()) return F::IntOrList(v.get<std::vector<int64_t>>());
  return F::IntOrList(v.get<int64_t>());
}

/// Values within rtol of PyTorch's, relative to each value and to the tensor's largest
/// magnitude (sums with cancellation); NaN where PyTorch has NaN; exact for integers.
inline void expect_close(const Tensor& got, const json& want, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_TRUE(got.defined());
  EXPECT_EQ(std::string(ember::dtype_name(got.dtype())), want["dtype"].get<std::string>());
  ASSERT_EQ(got.sizes().vec(), want["shape"].get<std::vector<int64_t>>());
  const std::vector<double> w = ember::test::golden_numbers(want["data"]);
  double scale = 1;
  for (double x : w)
    if (std::isfinite(x)) scale = std::max(scale, std::abs(x));
  const ember::Dtype dt = got.dtype();
  const double rtol = dt == ember::kFloat64   ? 1e-12
                      : dt == ember::kFloat32 ? 1e-5
                      : dt == ember::kFloat16 ? 2e-3
                      : dt == ember::kBFloat16 ? 1.6e-2
                                               : 0;
  // rtol * (|w| + scale): relative to each value and to the largest one
  const std::string bad =
      ember::test::mismatches(got.to(ember::kFloat64).contiguous().tolist<double>(), w,
                              ember::test::Tolerance{rtol, rtol * scale});
  EXPECT_TRUE(bad.empty()) << what << ": " << bad;
}

/// Runs f and expects an ember::Error whose message contains `part`.
template <class Fn>
void expect_error(Fn&& f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "expected an error containing: " << part;
  } catch (const ember::Error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
        << "message: " << e.what() << "\nexpected to contain: " << part;
  }
}

}  // namespace conv_golden
