// Helpers for kernels that move or order elements without arithmetic on them (gather/scatter,
// index, rearrangements, sort): dispatch on the element size, and PyTorch's NaN-aware orders.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace ember {

/// Calls f.template operator()<U>() with U the unsigned integer of `size` bytes: element copies
/// only move bytes, so they dispatch on the element size, not the dtype (fewer instantiations).
template <class F>
void by_size(int64_t size, const F& f) {
  switch (size) {
    case 1:
      return f.template operator()<uint8_t>();
    case 2:
      return f.template operator()<uint16_t>();
    case 4:
      return f.template operator()<uint32_t>();
    default:
      return f.template operator()<uint64_t>();
  }
}

/// NaN test for any element type (integers never are; half types go through float).
template <class T>
bool is_nan(T v) {
  if constexpr (std::is_integral_v<T>)
    return false;
  else
    return std::isnan(float(v));
}

/// A key with the same order and equality as element type T's values: int64 for integers and
/// bool, double for double, float for float and the half types. Sorting kernels compare keys so
/// that their sorts are compiled for three types, not once per dtype; widening keeps every
/// comparison's result, hence the same comparisons and swaps.
template <class T>
using order_key_t =
    std::conditional_t<std::is_integral_v<T>, int64_t,
                       std::conditional_t<std::is_same_v<T, double>, double, float>>;

/// PyTorch's sort orders, with NaN as the largest value: ascending with NaN last, descending
/// with NaN first.
template <class C>
bool lt_nan_last(C a, C b) {
  return (!is_nan(a) && is_nan(b)) || a < b;
}
template <class C>
bool gt_nan_first(C a, C b) {
  return (is_nan(a) && !is_nan(b)) || a > b;
}

}  // namespace ember
