// Limits of each floating element type that std::numeric_limits does not give for Half and
// BFloat16: the mantissa digits (the random fills draw that many bits) and the largest finite
// value (their bounds checks).
#pragma once

#include <limits>

#include "ember/half.h"

namespace ember {

/// Mantissa digits, the implicit bit included (std::numeric_limits<T>::digits for the others).
template <class T>
constexpr int kDigits = std::numeric_limits<T>::digits;
template <>
constexpr int kDigits<Half> = 11;
template <>
constexpr int kDigits<BFloat16> = 8;

template <class T>
constexpr double kMaxFinite = double(std::numeric_limits<T>::max());
template <>
constexpr double kMaxFinite<Half> = 65504.0;
template <>
constexpr double kMaxFinite<BFloat16> = 3.3895313892515355e38;  // (2 - 2^-7) * 2^127

}  // namespace ember
