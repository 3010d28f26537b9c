// Limits of each floating element type that std::numeric_limits does not give for Half and
// BFloat16: the mantissa digits (the random fills draw that many bits) and the largest finite
// value (their bounds checks).
#pragma once

#include <limits>

#include "ember/half.h"

namespace ember {

// `inline` on each: an explicit specialization of a variable template is not implicitly inline,
// so without it every translation unit that includes this header defines it again (an ODR
// violation GCC tolerates and Clang's linker reports).

/// Mantissa digits, the implicit bit included (std::numeric_limits<T>::digits for the others).
template <class T>
inline constexpr int kDigits = std::numeric_limits<T>::digits;
template <>
inline constexpr int kDigits<Half> = 11;
template <>
inline constexpr int kDigits<BFloat16> = 8;

template <class T>
inline constexpr double kMaxFinite = double(std::numeric_limits<T>::max());
template <>
inline constexpr double kMaxFinite<Half> = 65504.0;
template <>
inline constexpr double kMaxFinite<BFloat16> = 3.3895313892515355e38;  // (2 - 2^-7) * 2^127

}  // namespace ember
