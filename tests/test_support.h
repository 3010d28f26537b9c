// Helpers every test program may use, kept here so each exists once: checking that a statement
// throws an ember::Error with a given message, and reading PyTorch's golden files (tests/golden,
// written by the gen_*.py scripts) — the file, its dtype names, its numbers, its tensors.
#pragma once

#include <ember/creation.h>
#include <ember/dtype.h>
#include <ember/error.h>
#include <ember/math.h>
#include <ember/tensor.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <exception>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace ember::test {

/// The message of the ember::Error that `f` throws. Another exception, or none, gives a marker
/// that contains no message text, so a check for a fragment fails and shows what happened.
template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("<not an ember::Error: ") + e.what() + ">";
  }
  return "<no error thrown>";
}

/// tests/golden/<file> parsed. Json is nlohmann::ordered_json where the file's key order matters.
/// A missing file throws, failing the test that reads it with the path in the message.
template <class Json = nlohmann::json>
Json load_golden(const std::string& file) {
  const std::string path = std::string(EMBER_GOLDEN_DIR) + "/" + file;
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

/// The tensor of a golden {"shape", "dtype", "data"} entry (data flat, row-major). Integer and
/// bool dtypes are read as int64 so that large integers stay exact.
template <class Json>
Tensor golden_tensor(const Json& spec) {
  const Dtype dtype = dtype_named(spec.at("dtype").template get<std::string>());
  const std::vector<int64_t> shape = spec.at("shape").template get<std::vector<int64_t>>();
  if (is_floating_point(dtype)) {
    std::vector<double> v;
    for (const auto& x : spec.at("data")) v.push_back(golden_number(x));
    return from_vector(v, shape).to(dtype);
  }
  std::vector<int64_t> v;
  for (const auto& x : spec.at("data"))
    v.push_back(x.is_boolean() ? int64_t(x.template get<bool>()) : x.template get<int64_t>());
  return from_vector(v, shape).to(dtype);
}

/// Asserts that `got` has the golden entry's shape and, compared in float64, its values to
/// allclose(rtol, atol); `what` names the value in the failure message. The default tolerance
/// suits float32 results of a few operations against PyTorch's.
template <class Json>
void expect_golden_close(const Tensor& got, const Json& want, const std::string& what,
                         double rtol = 1e-5, double atol = 1e-6) {
  const Tensor w = golden_tensor(want);
  ASSERT_TRUE(got.defined()) << what;
  ASSERT_EQ(got.sizes(), w.sizes()) << what;
  EXPECT_TRUE(allclose(got.to(kFloat64), w.to(kFloat64), rtol, atol))
      << what << "\ngot " << got << "\nwant " << w;
}

}  // namespace ember::test

/// Expects `stmt` to throw an ember::Error whose message contains `text`.
#define EXPECT_ERROR(stmt, text)                                               \
  do {                                                                         \
    const std::string msg_ = ::ember::test::message_of([&] { (void)(stmt); }); \
    EXPECT_NE(msg_.find(text), std::string::npos) << "message: " << msg_;      \
  } while (0)
