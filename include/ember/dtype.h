// Element types: the ten dtypes, their sizes and names, and PyTorch's type promotion.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include "ember/half.h"

namespace ember {

enum class ScalarType : int8_t {
  Bool,
  UInt8,
  Int8,
  Int16,
  Int32,
  Int64,
  Float16,
  BFloat16,
  Float32,
  Float64,
};
using Dtype = ScalarType;
inline constexpr int kNumDtypes = 10;

inline constexpr Dtype kBool = Dtype::Bool;
inline constexpr Dtype kUInt8 = Dtype::UInt8;
inline constexpr Dtype kInt8 = Dtype::Int8;
inline constexpr Dtype kInt16 = Dtype::Int16;
inline constexpr Dtype kInt32 = Dtype::Int32;
inline constexpr Dtype kInt64 = Dtype::Int64;
inline constexpr Dtype kFloat16 = Dtype::Float16;
inline constexpr Dtype kBFloat16 = Dtype::BFloat16;
inline constexpr Dtype kFloat32 = Dtype::Float32;
inline constexpr Dtype kFloat64 = Dtype::Float64;
// PyTorch's aliases.
inline constexpr Dtype kFloat = kFloat32;
inline constexpr Dtype kDouble = kFloat64;
inline constexpr Dtype kHalf = kFloat16;
inline constexpr Dtype kLong = kInt64;
inline constexpr Dtype kInt = kInt32;
inline constexpr Dtype kByte = kUInt8;
inline constexpr Dtype kChar = kInt8;
inline constexpr Dtype kShort = kInt16;

/// Bytes per element.
constexpr int64_t itemsize(Dtype t) {
  constexpr int8_t sizes[kNumDtypes] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
  return sizes[int(t)];
}
constexpr bool is_floating_point(Dtype t) { return t >= kFloat16; }
constexpr bool is_integral(Dtype t, bool include_bool = false) {
  return (t >= kUInt8 && t <= kInt64) || (include_bool && t == kBool);
}
/// Short name as PyTorch prints it after "torch.": "float32", "int64", ...
const char* dtype_name(Dtype t);
std::ostream& operator<<(std::ostream& os, Dtype t);

/// The C++ type stored for each dtype, and back.
template <Dtype D> struct dtype_cpp;
template <> struct dtype_cpp<kBool> { using type = bool; };
template <> struct dtype_cpp<kUInt8> { using type = uint8_t; };
template <> struct dtype_cpp<kInt8> { using type = int8_t; };
template <> struct dtype_cpp<kInt16> { using type = int16_t; };
template <> struct dtype_cpp<kInt32> { using type = int32_t; };
template <> struct dtype_cpp<kInt64> { using type = int64_t; };
template <> struct dtype_cpp<kFloat16> { using type = Half; };
template <> struct dtype_cpp<kBFloat16> { using type = BFloat16; };
template <> struct dtype_cpp<kFloat32> { using type = float; };
template <> struct dtype_cpp<kFloat64> { using type = double; };

template <class T> constexpr Dtype dtype_of();
template <> constexpr Dtype dtype_of<bool>() { return kBool; }
template <> constexpr Dtype dtype_of<uint8_t>() { return kUInt8; }
template <> constexpr Dtype dtype_of<int8_t>() { return kInt8; }
template <> constexpr Dtype dtype_of<int16_t>() { return kInt16; }
template <> constexpr Dtype dtype_of<int32_t>() { return kInt32; }
template <> constexpr Dtype dtype_of<int64_t>() { return kInt64; }
template <> constexpr Dtype dtype_of<Half>() { return kFloat16; }
template <> constexpr Dtype dtype_of<BFloat16>() { return kBFloat16; }
template <> constexpr Dtype dtype_of<float>() { return kFloat32; }
template <> constexpr Dtype dtype_of<double>() { return kFloat64; }

/// PyTorch's promote_types: the smallest dtype that holds both (uint8 with int8 -> int16,
/// any integer with a float -> that float, float16 with bfloat16 -> float32).
Dtype promote_types(Dtype a, Dtype b);

/// Default floating dtype (float32, as torch.get_default_dtype()).
Dtype default_dtype();
void set_default_dtype(Dtype t);

}  // namespace ember
