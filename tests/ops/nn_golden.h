// The golden harness shared by norm_test, layers_test and loss_test: loads golden/nn.json
// (written by golden/gen_nn.py), builds each case's inputs (strided views included), runs the
// op's row of a table and compares every output with PyTorch's, or checks the error message.
#pragma once

#include <gtest/gtest.h>

#include <ember/ember.h>

#include <cmath>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"

namespace nn_golden {

using namespace ember;
using namespace ember::indexing;
using json = nlohmann::json;

using ember::test::golden_tensor;

/// A case: its inputs built once, and typed access to its args.
struct Case {
  const json& c;
  std::map<std::string, Tensor> in;
  explicit Case(const json& j) : c(j) {
    for (auto& [k, v] : j["inputs"].items()) in[k] = golden_tensor(v);
  }
  Tensor operator[](const std::string& k) const {
    auto it = in.find(k);
    return it == in.end() ? Tensor() : it->second;
  }
  bool has(const std::string& k) const { return c["args"].contains(k) && !c["args"][k].is_null(); }
  template <class T>
  T arg(const std::string& k, T fallback) const {
    return has(k) ? c["args"][k].get<T>() : fallback;
  }
  template <class T>
  std::optional<T> opt(const std::string& k) const {
    return has(k) ? std::optional<T>(c["args"][k].get<T>()) : std::nullopt;
  }
  std::string name() const { return c["op"].get<std::string>() + " / " + c["name"].get<std::string>(); }
};

using Outputs = std::map<std::string, Tensor>;
using Runner = std::function<Outputs(const Case&)>;

inline const json& all_cases() {
  static const json cases = ember::test::load_golden("nn.json")["cases"];
  return cases;
}

/// Same shape, dtype and values (to Tolerance{rtol, atol}) as PyTorch's result.
inline void expect_close(const Tensor& got, const json& want, const std::string& what,
                         double rtol, double atol) {
  ASSERT_TRUE(got.defined()) << what << ": no result";
  const std::vector<int64_t> shape = want["shape"];
  ASSERT_EQ(got.sizes().vec(), shape) << what << ": shape";
  EXPECT_EQ(dtype_name(got.dtype()), want["dtype"].get<std::string>()) << what << ": dtype";
  const std::string bad = ember::test::mismatches(got.to(kFloat64).contiguous().tolist<double>(),
                                                  ember::test::golden_numbers(want["data"]),
                                                  ember::test::Tolerance{rtol, atol});
  EXPECT_TRUE(bad.empty()) << what << ": " << bad;
}

/// Runs every case of `family`: its op's row of `table`, then compares all outputs (or the
/// error). Float32 results are checked to rtol 1e-5 / atol 1e-5 unless `tolerance` says more.
inline void run_family(const std::string& family, const std::map<std::string, Runner>& table,
                       std::function<double(const Case&)> atol_for = {}) {
  int n = 0;
  for (const json& j : all_cases()) {
    if (j["family"] != family) continue;
    ++n;
    const std::string op = j["op"];
    auto row = table.find(op);
    if (row == table.end()) {
      ADD_FAILURE() << "no table row for " << op;
      continue;
    }
    Case c(j);
    SCOPED_TRACE(c.name());
    if (j.contains("error")) {
      const std::string want = j["error"];
      try {
        row->second(c);
        ADD_FAILURE() << c.name() << ": no error, want \"" << want << "\"";
      } catch (const ember::Error& e) {
        EXPECT_NE(std::string(e.what()).find(want), std::string::npos)
            << c.name() << ": got \"" << e.what() << "\", want \"" << want << "\"";
      }
      continue;
    }
    Outputs out;
    try {
      out = row->second(c);
    } catch (const std::exception& e) {
      ADD_FAILURE() << c.name() << ": threw " << e.what();
      continue;
    }
    for (auto& [k, want] : j["out"].items()) {
      const bool f64 = want["dtype"] == "float64";
      double atol = f64 ? 1e-10 : 1e-5;
      const double rtol = f64 ? 1e-9 : 1e-5;
      if (atol_for) atol = std::max(atol, atol_for(c));
      auto it = out.find(k);
      if (it == out.end()) {
        ADD_FAILURE() << c.name() << ": no output " << k;
        continue;
      }
      expect_close(it->second, want, c.name() + " " + k, rtol, atol);
    }
  }
  EXPECT_GT(n, 0) << "no golden cases for " << family;
}

}  // namespace nn_golden
