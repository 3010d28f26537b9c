// Reading PyTorch's golden files (tests/golden, written by the gen_*.py scripts through
// golden_json.py) and comparing ember's results with them: the file, its dtype names, its
// numbers, its tensor specs, and one element-by-element comparison that every golden test
// gives its own closeness rule.
#pragma once

#include "golden_dir.h"
#include <ember/creation.h>
#include <ember/dtype.h>
#include <ember/math.h>
#include <ember/tensor.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iomanip>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ember::test {

/// tests/golden/<file> parsed. Json is nlohmann::ordered_json where the file's key order matters.
/// A missing file throws, failing the test that reads it with the path in the message.
template <class Json = nlohmann::json>
Json load_golden(const std::string& file) {
  const std::string path = ember::test::golden_path(file);
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open golden file " + path);
  return Json::parse(in);
}

/// A table-driven golden file ({"cases": [{"op": ...}, ...]}) for parameterised tests, whose
/// parameters are read during static initialisation where a throw would abort the program: a
/// missing file gives no cases, and the test program's GoldenFile check reports it.
inline nlohmann::json golden_table(const std::string& file) {
  try {
    return load_golden(file);
  } catch (const std::runtime_error&) {
    return nlohmann::json::object({{"cases", nlohmann::json::array()}});
  }
}

/// The ops a golden table's cases name, in the order the file first names them.
inline std::vector<std::string> golden_ops(const nlohmann::json& table) {
  std::vector<std::string> ops;
  std::set<std::string> seen;
  for (const nlohmann::json& c : table["cases"])
    if (seen.insert(c["op"].get<std::string>()).second) ops.push_back(c["op"]);
  return ops;
}

/// The dtype whose PyTorch name (torch.float32 -> "float32") the generators write.
inline Dtype dtype_named(const std::string& name) {
  for (int i = 0; i < kNumDtypes; ++i)
    if (name == dtype_name(Dtype(i))) return Dtype(i);
  throw std::runtime_error("unknown dtype " + name);
}

/// A golden number: JSON numbers and bools, or the strings "nan", "inf" and "-inf" that the
/// generators write because JSON has no such numbers.
template <class Json>
double golden_number(const Json& v) {
  if (v.is_string()) {
    const std::string s = v.template get<std::string>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    throw std::runtime_error("bad golden number " + s);
  }
  if (v.is_boolean()) return v.template get<bool>();
  return v.template get<double>();
}

/// A list of golden numbers.
template <class Json>
std::vector<double> golden_numbers(const Json& data) {
  std::vector<double> v;
  v.reserve(data.size());
  for (const auto& x : data) v.push_back(golden_number(x));
  return v;
}

/// The size of one unit in the last place at v in a floating dtype (subnormals share the
/// smallest exponent).
inline double ulp(double v, Dtype dtype) {
  const int digits = dtype == kFloat64 ? 53 : dtype == kFloat32 ? 24 : dtype == kFloat16 ? 11 : 8;
  const int emin = dtype == kFloat64 ? -1022 : dtype == kFloat16 ? -14 : -126;
  const int e = v == 0 || !std::isfinite(v) ? emin : std::max(std::ilogb(v), emin);
  return std::ldexp(1.0, e - digits + 1);
}

namespace detail {

template <class Json>
Tensor golden_base(const Json& spec, const std::vector<int64_t>& shape) {
  const Dtype dtype = dtype_named(spec.at("dtype").template get<std::string>());
  const Json& data = spec.at("data");
  if (data.is_object()) {  // {"fill": [a, m, offset, scale, shift]}, see golden_tensor
    const Json& f = data.at("fill");
    const int64_t a = f[0], m = f[1];
    const double offset = f[2], scale = f[3], shift = f[4];
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    std::vector<double> v;
    for (int64_t i = 0; i < n; ++i) v.push_back((double((i * a) % m) - offset) / scale + shift);
    return from_vector(v, shape).to(dtype);
  }
  if (is_floating_point(dtype)) return from_vector(golden_numbers(data), shape).to(dtype);
  std::vector<int64_t> v;  // integers stay exact beyond 2^53
  for (const auto& x : data)
    v.push_back(x.is_boolean() ? int64_t(x.template get<bool>()) : x.template get<int64_t>());
  return from_vector(v, shape).to(dtype);
}

}  // namespace detail

/// The tensor of a golden spec {"dtype", "shape" or "base", "data", "view"}: a contiguous tensor
/// of shape base (a result's "shape") holding data row-major, then the "view" ops applied in
/// order, so that it has the generator's strides: ["t"], ["transpose", d0, d1],
/// ["permute", [dims]], ["slice", dim, start, stop|null, step], ["expand", [sizes]],
/// ["unsqueeze", d], ["select", d, i]. data is a list of golden numbers (integer and bool dtypes
/// read as int64, exact), or {"fill": [a, m, offset, scale, shift]}: element i is
/// ((i * a) % m - offset) / scale + shift, computed in double as the generator does.
template <class Json>
Tensor golden_tensor(const Json& spec) {
  const std::vector<int64_t> shape =
      spec.at(spec.contains("base") ? "base" : "shape").template get<std::vector<int64_t>>();
  Tensor t = detail::golden_base(spec, shape);
  if (!spec.contains("view")) return t;
  for (const auto& op : spec.at("view")) {
    const std::string kind = op[0];
    if (kind == "t") {
      t = t.t();
    } else if (kind == "transpose") {
      t = t.transpose(op[1], op[2]);
    } else if (kind == "permute") {
      t = t.permute(op[1].template get<std::vector<int64_t>>());
    } else if (kind == "slice") {
      std::optional<int64_t> stop;
      if (!op[3].is_null()) stop = op[3].template get<int64_t>();
      t = t.slice(op[1], op[2].template get<int64_t>(), stop, op[4].template get<int64_t>());
    } else if (kind == "expand") {
      t = t.expand(op[1].template get<std::vector<int64_t>>());
    } else if (kind == "unsqueeze") {
      t = t.unsqueeze(op[1]);
    } else if (kind == "select") {
      t = t.select(op[1], op[2]);
    } else {
      throw std::runtime_error("unknown view op " + kind);
    }
  }
  return t;
}

/// The closeness rule most golden tests use: |got - want| <= atol + rtol * |want|.
struct Tolerance {
  double rtol = 0;
  double atol = 0;
  bool operator()(double got, double want) const {
    return std::abs(got - want) <= atol + rtol * std::abs(want);
  }
};

namespace detail {

template <class T, class Close>
std::string mismatches(const std::vector<T>& got, const std::vector<T>& want, Close close,
                       int shown) {
  std::ostringstream err;
  if (got.size() != want.size()) {
    err << got.size() << " elements, PyTorch has " << want.size();
    return err.str();
  }
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (close(got[i], want[i]) || bad++ >= size_t(shown)) continue;
    err << std::setprecision(17) << "element " << i << ": " << got[i] << ", PyTorch " << want[i]
        << "; ";
  }
  if (bad) err << bad << " of " << got.size() << " elements differ";
  return err.str();
}

}  // namespace detail

/// Compares `got` with PyTorch's `want` element by element (row-major): a NaN matches only a NaN
/// and an infinity only itself; other pairs match when `close(got, want)` says so. Returns the
/// first `shown` mismatches and how many there are, empty when every element matches.
template <class Close>
std::string mismatches(const std::vector<double>& got, const std::vector<double>& want,
                       Close close, int shown = 5) {
  return detail::mismatches(got, want, [&](double a, double e) {
    if (std::isnan(a) || std::isnan(e) || std::isinf(a) || std::isinf(e))
      return (std::isnan(a) && std::isnan(e)) || a == e;
    return bool(close(a, e));
  }, shown);
}

/// Integers: each element equal to PyTorch's.
inline std::string mismatches(const std::vector<int64_t>& got, const std::vector<int64_t>& want,
                              int shown = 5) {
  return detail::mismatches(got, want, [](int64_t a, int64_t e) { return a == e; }, shown);
}

/// Values for a failure message, "[v0, v1, ...]", the first 40 of them to 9 digits.
inline std::string show_values(const std::vector<double>& v) {
  std::ostringstream os;
  os.precision(9);
  os << "[";
  for (size_t i = 0; i < v.size() && i < 40; ++i) os << (i ? ", " : "") << v[i];
  return os.str() + (v.size() > 40 ? ", ...]" : "]");
}

/// Asserts that `got` has the golden entry's shape and, compared in float64, its values (read in
/// the entry's dtype) to Tolerance{rtol, atol}; `what` names the value in the failure message.
/// The default tolerance suits float32 results of a few operations against PyTorch's.
template <class Json>
void expect_golden_close(const Tensor& got, const Json& want, const std::string& what,
                         double rtol = 1e-5, double atol = 1e-6) {
  const Tensor w = golden_tensor(want);
  ASSERT_TRUE(got.defined()) << what;
  ASSERT_EQ(got.sizes(), w.sizes()) << what;
  const std::string bad = mismatches(got.to(kFloat64).contiguous().tolist<double>(),
                                     w.to(kFloat64).contiguous().tolist<double>(),
                                     Tolerance{rtol, atol});
  EXPECT_TRUE(bad.empty()) << what << ": " << bad << "\ngot " << got << "\nwant " << w;
}

}  // namespace ember::test
