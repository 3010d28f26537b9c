// The elementwise kernels' identities, one list for every backend: the CPU's table entries
// (src/backend/cpu) and the CUDA kernels' launch struct (src/backend/cuda/elementwise_launch.h),
// which nvcc compiles without ember's headers, so this header includes none.
#pragma once

#include <cstdint>

namespace ember::backend {

// One entry per kernel; the comments name the CPU file of each group (src/backend/cpu) and the
// ElementwiseArgs (backend.h) each kernel reads.
enum class ElementwiseKernel : uint16_t {
  // unary.cpp
  neg, abs, sign, sqrt, rsqrt, square, exp, exp2, expm1, log, log2, log10, log1p,
  sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, erf, erfc, reciprocal,
  floor, ceil, trunc, round, frac,
  round_decimals,  // integer: decimals
  clamp,           // scalar[0]/[1]: min/max (either may be absent)
  clamp_tensor,    // (x, min, max)
  nan_to_num,      // real[0..2]: the replacements of nan, +inf, -inf
  // binary.cpp
  add, sub,        // scalar[0]: alpha
  mul, true_div, floor_div, trunc_div, remainder, fmod,
  pow,             // (base, exponent)
  pow_scalar,      // (base, exponent as an operand); real[0]: the exponent, for the fast paths
  atan2, maximum, minimum, fmax, fmin,
  lerp,            // (start, end, weight)
  lerp_scalar,     // scalar[0]: weight
  addcmul, addcdiv,  // scalar[0]: value
  hypot, xlogy,
  // compare.cpp (bool results)
  eq, ne, lt, le, gt, ge, logical_and, logical_or, logical_xor, logical_not,
  isnan, isinf, isfinite,
  isclose,         // real[0]/[1]: rtol/atol; flag: equal_nan
  bitwise_and, bitwise_or, bitwise_xor, bitwise_not,
  where,           // (condition, x, y), all in the compute dtype
  masked_fill,     // (x, mask in x's dtype); scalar[0]: value
  // activation.cpp
  sigmoid, relu,
  logit,           // real[0]/[1]: the clamp bounds; flag: clamp (eps given)
  leaky_relu,      // real[0]: negative slope
  elu,             // real[0..2]: alpha * scale, scale, input scale
  gelu, gelu_tanh, silu, mish,
  softplus,        // real[0]/[1]: beta, threshold
  hardtanh,        // real[0]/[1]: min, max
  hardsigmoid, hardswish,
  hardshrink,      // real[0]: lambd
  threshold_backward,  // (grad, self); real[0]: threshold
  // loss.cpp (pointwise parts)
  mse_loss,
  smooth_l1_loss,  // real[0]: beta
  huber_loss,      // real[0]: delta
  binary_cross_entropy,
  binary_cross_entropy_with_logits,
  binary_cross_entropy_with_logits_weighted,  // (x, t, 1 + (pos_weight - 1) t)
  kCount
};

}  // namespace ember::backend
