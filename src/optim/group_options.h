// Builds a parameter group's option Dict the way PyTorch's add_param_group does: the keys the
// group gave come first, then setdefault() appends the remaining defaults in the optimizer's
// order. A value comes from the group, else the optimizer's defaults, else PyTorch's default.
// Note [Int defaults]: PyTorch's defaults such as weight_decay=0 are Python ints and survive as
// ints in state_dict(); a value equal to such a default is stored as an int so the dicts match.
#pragma once

#include <optional>
#include <string>
#include <type_traits>

#include "ember/error.h"
#include "ember/optim/optimizer.h"

namespace ember::optim::detail {

class GroupOptionsBuilder {
 public:
  explicit GroupOptionsBuilder(const char* op) : op_(op) {}

  template <class T>
  T add(const char* key, const Setting<T>& group, const Setting<T>& defaults,
        std::type_identity_t<std::optional<T>> fallback, bool int_default = false) {
    const bool given = group.has_value();
    EMBER_CHECK(given || defaults.has_value() || fallback, op_, "parameter group didn't specify a ",
                "value of required optimization parameter ", key);
    const T v = given ? group.value() : defaults.has_value() ? defaults.value() : *fallback;
    Value value;
    if constexpr (std::is_same_v<T, Betas>) {
      value = Value(Tuple{{Value(v.first), Value(v.second)}});
    } else if constexpr (std::is_same_v<T, double>) {
      if (int_default && fallback && v == *fallback && v == double(int64_t(v)))
        value = Value(int64_t(v));
      else
        value = Value(v);
    } else {
      value = Value(v);
    }
    (given ? given_ : rest_).insert(Value(key), value);
    return v;
  }
  /// A key PyTorch has that ember fixes (foreach=None, capturable=False, ...).
  void fixed(const char* key, Value value) { rest_.insert(Value(key), std::move(value)); }
  Dict finish() {
    for (auto& [k, v] : rest_) given_.insert(k, v);
    return std::move(given_);
  }

 private:
  const char* op_;
  Dict given_, rest_;
};

}  // namespace ember::optim::detail
