// What a kernel body needs to compile for both sides (Note [Block programs] in block.cuh):
// EMBER_HOST_DEVICE (`__host__ __device__` under nvcc, nothing for the host compiler), the math
// functions by one name on both sides, and the storage types of float16/bfloat16: CUDA's __half
// and __nv_bfloat16 on the device, ember's Half and BFloat16 on the host. Both load into float
// (Opmath) and round once on the store, so a body computes the same on either side.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#ifdef __CUDACC__
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#define EMBER_HOST_DEVICE __host__ __device__
#else
#include "ember/half.h"
#define EMBER_HOST_DEVICE
#endif

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

#ifdef __CUDACC__
using Half = __half;
using BFloat16 = __nv_bfloat16;
#else
using Half = ember::Half;
using BFloat16 = ember::BFloat16;
#endif

template <class S>
inline constexpr bool is_half_v = std::is_same_v<S, Half> || std::is_same_v<S, BFloat16>;

/// The type a kernel computes a storage type in: float for the half types (PyTorch's opmath).
template <class S>
using opmath_t = std::conditional_t<is_half_v<S>, float, S>;

namespace math {
// CUDA declares __host__ __device__ overloads of these for float and double in the global
// namespace; the host compiler has std's.
#ifdef __CUDACC__
using ::acos, ::asin, ::atan, ::atan2, ::ceil, ::copysign, ::cos, ::cosh, ::erf, ::erfc, ::exp,
    ::exp2, ::expm1, ::fabs, ::floor, ::fma, ::fmax, ::fmin, ::fmod, ::hypot, ::log, ::log10,
    ::log1p, ::log2, ::nearbyint, ::pow, ::sin, ::sinh, ::sqrt, ::tan, ::tanh, ::trunc;
#else
using std::acos, std::asin, std::atan, std::atan2, std::ceil, std::copysign, std::cos, std::cosh,
    std::erf, std::erfc, std::exp, std::exp2, std::expm1, std::fabs, std::floor, std::fma,
    std::fmax, std::fmin, std::fmod, std::hypot, std::log, std::log10, std::log1p, std::log2,
    std::nearbyint, std::pow, std::sin, std::sinh, std::sqrt, std::tan, std::tanh, std::trunc;
#endif

// The device's rsqrt (an instruction in float32, within 2 ulp); the host divides, one more
// rounding, which the tests' tolerance for rsqrt allows.
template <class C>
EMBER_HOST_DEVICE C rsqrt(C x) {
#ifdef __CUDA_ARCH__
  return ::rsqrt(x);
#else
  return C(1) / sqrt(x);
#endif
}
/// x * y rounded once and never contracted into a following addition: nvcc fuses a * b + c into
/// an fma (--fmad=true) where a CPU kernel rounds twice. On the host the same single rounding is
/// fma(x, y, -0.0), whatever the compiler's contraction setting.
template <class C>
EMBER_HOST_DEVICE C mul_rn(C x, C y) {
#ifdef __CUDA_ARCH__
  if constexpr (std::is_same_v<C, double>)
    return __dmul_rn(x, y);
  else
    return __fmul_rn(x, y);
#else
  return fma(x, y, C(-0.0));
#endif
}
}  // namespace math

template <class T>
struct Tag {
  using type = T;
};

/// Calls f(Tag<T>{}) for the first of Ts that match(Tag<T>{}) accepts; false when none does.
/// Only Ts are instantiated: each kernel's launcher lists the types it has a kernel for.
template <class... Ts, class Match, class F>
bool with_first(Match match, F&& f) {
  return ((match(Tag<Ts>{}) && (f(Tag<Ts>{}), true)) || ...);
}

/// The Type enumerator of a storage type.
template <class S>
constexpr Type type_of() {
  if constexpr (std::is_same_v<S, float>)
    return Type::float32;
  else if constexpr (std::is_same_v<S, double>)
    return Type::float64;
  else if constexpr (std::is_same_v<S, Half>)
    return Type::float16;
  else if constexpr (std::is_same_v<S, BFloat16>)
    return Type::bfloat16;
  else if constexpr (std::is_same_v<S, int32_t>)
    return Type::int32;
  else if constexpr (std::is_same_v<S, int64_t>)
    return Type::int64;
  else {
    static_assert(std::is_same_v<S, bool>, "not a storage type of the cuda kernels");
    return Type::boolean;
  }
}

/// Calls f(Tag<S>{}) for the storage type S of `t` among Ss; false (f not called) for another.
template <class... Ss, class F>
bool with_type_among(Type t, F&& f) {
  return with_first<Ss...>([t](auto s) { return type_of<typename decltype(s)::type>() == t; }, f);
}

/// with_type_among every storage type (copies) or the four floating ones (the elementwise and
/// reduction kernels).
template <class F>
bool with_type(Type t, F&& f) {
  return with_type_among<float, double, Half, BFloat16, int32_t, int64_t, bool>(t, f);
}
template <class F>
bool with_floating_type(Type t, F&& f) {
  return with_type_among<float, double, Half, BFloat16>(t, f);
}

}  // namespace ember::cuda::kernels
