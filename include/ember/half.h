// float16 and bfloat16 as real 2-byte storage types with float arithmetic inside.
// Conversions round to nearest even and preserve NaN and ±Inf (see Note [Half conversion]).
#pragma once

#include <cstdint>
#include <cstring>

namespace ember {

namespace detail {
inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint16_t float_to_half_bits(float f);
float half_bits_to_float(uint16_t h);
}  // namespace detail

/// IEEE 754 binary16.
struct Half {
  uint16_t x = 0;
  Half() = default;
  Half(float f) : x(detail::float_to_half_bits(f)) {}  // NOLINT: implicit like a float type
  operator float() const { return detail::half_bits_to_float(x); }
  static Half from_bits(uint16_t bits) {
    Half h;
    h.x = bits;
    return h;
  }
};

/// bfloat16: the top 16 bits of a float32.
struct BFloat16 {
  uint16_t x = 0;
  BFloat16() = default;
  BFloat16(float f) : x(round_to_bf16(f)) {}  // NOLINT: implicit like a float type
  operator float() const { return detail::bits_float(uint32_t(x) << 16); }
  static BFloat16 from_bits(uint16_t bits) {
    BFloat16 b;
    b.x = bits;
    return b;
  }
  // Round to nearest even on the dropped 16 bits; any NaN becomes the canonical quiet NaN
  // (0x7FC0) as in PyTorch, so a NaN never rounds into ±Inf.
  static uint16_t round_to_bf16(float f) {
    uint32_t u = detail::float_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;
    u += 0x7fffu + ((u >> 16) & 1u);
    return uint16_t(u >> 16);
  }
};

}  // namespace ember
