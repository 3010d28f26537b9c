// What the LR scheduler files share: their state dicts' values (lists of doubles, the Dict a
// load_state_dict receives) and Python's arithmetic where PyTorch's formulas use it.
#pragma once

#include <cstdint>
#include <numbers>
#include <vector>

#include "ember/error.h"
#include "ember/value.h"

namespace ember::optim::scheduler_detail {

inline constexpr double kPi = std::numbers::pi;

inline int64_t py_mod(int64_t a, int64_t b) {  // Python's %: the sign of the divisor
  const int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

/// Each lr times `factor`: the factor schedules' step, and base_lrs times the closed form's factor.
inline std::vector<double> scaled(std::vector<double> lrs, double factor) {
  for (double& lr : lrs) lr *= factor;
  return lrs;
}

inline List to_list(const std::vector<double>& v) {
  List out;
  for (double x : v) out.emplace_back(x);
  return out;
}

inline std::vector<double> doubles(const Value& v) {
  std::vector<double> out;
  for (const Value& x : v.to_list()) out.push_back(x.to_double());
  return out;
}

inline const Dict& as_dict(const Value& v, const char* op) {
  EMBER_CHECK(v.is_dict(), op, "load_state_dict expects a Dict, got ", v.kind_name());
  return v.to_dict();
}

inline const Value& key(const Dict& d, const char* k) { return d.at(Value(k)); }

}  // namespace ember::optim::scheduler_detail
