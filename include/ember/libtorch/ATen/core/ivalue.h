// c10::IValue: ember's Value (None, bool, int, double, string, tensor, list, tuple, dict) with
// LibTorch's camelCase accessors, for what programs keep in ctx->saved_data and read back with
// toDouble(), toInt(), toTensor(), ...
#pragma once

#include <string>
#include <utility>

#include "ember/value.h"

namespace c10 {

class IValue : public ember::Value {
 public:
  using ember::Value::Value;
  IValue() = default;
  IValue(ember::Value v) : ember::Value(std::move(v)) {}  // NOLINT: from what ember returns
  IValue(float v) : ember::Value(double(v)) {}            // NOLINT: as LibTorch's

  bool isNone() const { return is_none(); }
  bool isBool() const { return is_bool(); }
  bool isInt() const { return is_int(); }
  bool isDouble() const { return is_double(); }
  bool isString() const { return is_string(); }
  bool isTensor() const { return is_tensor(); }
  bool isList() const { return is_list(); }
  bool isTuple() const { return is_tuple(); }
  bool isGenericDict() const { return is_dict(); }

  bool toBool() const { return to_bool(); }
  int64_t toInt() const { return to_int(); }
  double toDouble() const { return to_double(); }
  const std::string& toStringRef() const { return to_string(); }
  ember::Tensor toTensor() const { return to_tensor(); }
};

}  // namespace c10
