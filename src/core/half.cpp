// Note [Half conversion]
// float32 -> float16 rounds to nearest, ties to even, in every range: normal halves drop 13
// mantissa bits; subnormal halves (|x| < 2^-14) are counted in units of 2^-24; values that round
// past 65504 become Inf. NaN stays NaN (quiet, sign kept), Inf stays Inf. This matches IEEE and
// c10::Half bit for bit (checked against PyTorch's golden values in tests/core/half_test.cpp).
#include "ember/half.h"

namespace ember::detail {

uint16_t float_to_half_bits(float f) {
  const uint32_t u = float_bits(f);
  const uint16_t sign = uint16_t((u >> 16) & 0x8000u);
  const uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return sign | 0x7e00u;   // NaN
  if (a >= 0x47800000u) return sign | 0x7c00u;  // >= 65536 (and Inf): Inf
  if (a >= 0x38800000u) {                       // normal half: rebias exponent 127 -> 15
    uint32_t m = a - 0x38000000u;
    m += 0xfffu + ((m >> 13) & 1u);             // round to nearest even; may carry into Inf
    return uint16_t(sign | (m >> 13));
  }
  if (a < 0x33000000u) return sign;  // below 2^-25: rounds to zero
  const uint32_t exponent = a >> 23;
  const uint32_t mantissa = (a & 0x7fffffu) | 0x800000u;
  const uint32_t shift = 126u - exponent;  // 14..24 bits fall below the 2^-24 unit
  uint32_t r = mantissa >> shift;
  const uint32_t rest = mantissa & ((1u << shift) - 1u);
  const uint32_t halfway = 1u << (shift - 1u);
  if (rest > halfway || (rest == halfway && (r & 1u))) ++r;  // may become the smallest normal
  return uint16_t(sign | r);
}

float half_bits_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in float
    const float v = float(mantissa) * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  if (exponent == 31) {  // Inf / NaN; a signalling NaN comes back quiet, as c10 and F16C do
    return bits_float(sign | 0x7f800000u | (mantissa << 13) | (mantissa ? 0x400000u : 0u));
  }
  return bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

}  // namespace ember::detail
