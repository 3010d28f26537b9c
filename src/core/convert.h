// Element conversion between any two ember dtypes, as PyTorch's static casts do it:
// to bool is "!= 0"; half types go through float; float -> int truncates toward zero.
#pragma once

#include <concepts>
#include <type_traits>

#include "ember/half.h"

namespace ember {

template <class T>
inline constexpr bool is_half_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

template <class To, class From>
inline To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_half_v<From>) {
    return convert<To>(float(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (is_half_v<To>) {
    return To(float(v));
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace ember
