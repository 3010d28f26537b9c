// The elementwise kernels' work, for the device (elementwise.cu) and the CPU emulation
// (elementwise_emulation.cpp) alike: one functor per backend::ElementwiseKernel (the list every
// backend shares, backend/elementwise_kernel_list.h), each declaring its inputs, the storage
// types it takes (the CPU kernel's dtypes among the cuda ones) and whether it stores bool; the
// table `with_op` from kernel to functor; and the block body that maps a functor over the strided
// layout of elementwise_launch.h in a grid-stride loop, float16/bfloat16 loaded into float32 and
// rounded once on the store (PyTorch's opmath). The formulas are the CPU kernels'
// (src/backend/cpu/{unary,binary,compare,activation,loss}.cpp), which follow PyTorch's.
#pragma once

#include <cstdint>
#include <type_traits>

#include "backend/cuda/block.cuh"
#include "backend/cuda/elementwise_launch.h"
#include "backend/cuda/strided.cuh"

namespace ember::cuda::kernels {

using backend::ElementwiseKernel;

// ── what an op takes ────────────────────────────────────────────────────────────────────────
using TypeSet = uint32_t;
constexpr TypeSet type_bit(Type t) { return TypeSet(1) << int(t); }
// The CPU's DtypeSets (core/dispatch.h) among the cuda storage types.
inline constexpr TypeSet kFloatingTypes = type_bit(Type::float32) | type_bit(Type::float64) |
                                          type_bit(Type::float16) | type_bit(Type::bfloat16);
inline constexpr TypeSet kNumericTypes =
    kFloatingTypes | type_bit(Type::int32) | type_bit(Type::int64);
inline constexpr TypeSet kAllTypes = kNumericTypes | type_bit(Type::boolean);
inline constexpr TypeSet kIntegralTypes =
    type_bit(Type::int32) | type_bit(Type::int64) | type_bit(Type::boolean);

/// An op's inputs (1 to 3), its storage types, and whether it stores bool (comparisons and
/// predicates) instead of the compute type.
template <int Inputs, TypeSet Types, bool Predicate = false>
struct OpTraits {
  static constexpr int inputs = Inputs;
  static constexpr TypeSet types = Types;
  static constexpr bool predicate = Predicate;
};

// ── shared helpers ──────────────────────────────────────────────────────────────────────────
template <class C>
inline constexpr bool is_float_v = std::is_floating_point_v<C>;

/// scalar[k] of the launch in the compute type (elementwise_launch.h: exact for int64).
template <class C>
EMBER_HOST_DEVICE C scalar_arg(const Launch& l, int k) {
  if constexpr (is_float_v<C>)
    return C(l.scalar[k]);
  else
    return C(l.integer_scalar[k]);
}
template <class C>
EMBER_HOST_DEVICE C real_arg(const Launch& l, int k) {
  return C(l.real[k]);
}

// The CPU's vmax/vmin (src/backend/cpu/vec.h): a NaN on either side gives NaN (a + b), else the
// larger/smaller, the second operand on ties (so relu(-0.0) is -0.0, as PyTorch's clamps).
template <class C>
EMBER_HOST_DEVICE C vmax(C a, C b) {
  if constexpr (is_float_v<C>)
    if (a != a || b != b) return a + b;
  return a > b ? a : b;
}
template <class C>
EMBER_HOST_DEVICE C vmin(C a, C b) {
  if constexpr (is_float_v<C>)
    if (a != a || b != b) return a + b;
  return a < b ? a : b;
}

// Integer division and modulo by zero: the CPU kernels raise ZeroDivisionError, which a kernel
// cannot; PyTorch's CUDA kernels leave it to the hardware. These give 0, defined on both sides
// (the emulation would trap on the host's division).
template <class C>
EMBER_HOST_DEVICE C int_div(C a, C b) {
  return b == C(0) ? C(0) : C(a / b);
}
template <class C>
EMBER_HOST_DEVICE C int_mod(C a, C b) {
  return b == C(0) ? C(0) : C(a % b);
}

// binary.cpp's floor_div: PyTorch's div_floor for floats (exact quotient adjusted toward -inf,
// the sign of zero kept); C division corrected for mixed signs for integers.
template <class C>
EMBER_HOST_DEVICE C floor_div(C a, C b) {
  if constexpr (is_float_v<C>) {
    if (b == C(0)) return a / b;
    const C mod = math::fmod(a, b);
    C div = (a - mod) / b;
    if (mod != C(0) && (b < C(0)) != (mod < C(0))) div -= C(1);
    if (div == C(0)) return math::copysign(C(0), a / b);
    C floordiv = math::floor(div);
    if (div - floordiv > C(0.5)) floordiv += C(1);
    return floordiv;
  } else {
    const C q = int_div(a, b);
    return (int_mod(a, b) != C(0) && ((a < C(0)) != (b < C(0)))) ? C(q - 1) : q;
  }
}

// Python's remainder: the sign of the divisor.
template <class C>
EMBER_HOST_DEVICE C remainder(C a, C b) {
  C mod;
  if constexpr (is_float_v<C>)
    mod = math::fmod(a, b);
  else
    mod = int_mod(a, b);
  if (mod != C(0) && ((b < C(0)) != (mod < C(0)))) mod = C(mod + b);
  return mod;
}

// pow on integers by squaring; a negative exponent gives 0 but for bases 1 and -1 (binary.cpp).
template <class C>
EMBER_HOST_DEVICE C int_pow(C base, C exp) {
  if (exp < C(0)) {
    if (base == C(1)) return C(1);
    if (base == C(-1)) return (exp & C(1)) ? C(-1) : C(1);
    return C(0);
  }
  C result = 1;
  while (exp) {
    if (exp & C(1)) result = C(result * base);
    base = C(base * base);
    exp >>= 1;
  }
  return result;
}
template <class C>
EMBER_HOST_DEVICE C pow_of(C x, C y) {
  if constexpr (is_float_v<C>)
    return math::pow(x, y);
  else if constexpr (std::is_same_v<C, bool>)
    return x || !y;
  else
    return int_pow(x, y);
}

// PyTorch 1.13's lerp: from the end nearer a weight in [0, 1], so lerp(a, b, 1) == b exactly.
template <class C>
EMBER_HOST_DEVICE C lerp_of(C a, C b, C w) {
  return w < C(0.5) ? math::fma(w, b - a, a) : math::fma(a - b, C(1) - w, b);
}

template <class C>
EMBER_HOST_DEVICE C hard_sigmoid6(C x) {  // relu6(x + 3), hardsigmoid's and hardswish's core
  return vmin(vmax(x + C(3), C(0)), C(6));
}

// log(1 + e^-x) stably: with m = max(-x, 0), log(e^-m + e^(-x-m)) + m (loss.cpp).
template <class C>
EMBER_HOST_DEVICE C log1p_exp_neg(C x, C m) {
  return math::log(math::exp(-m) + math::exp(-x - m));
}

// ── the functors: out = f(l, inputs...) ─────────────────────────────────────────────────────
// One line per op: its name, the types it takes, and the expression over x (unary), a, b
// (binary) or a, b, c (ternary); `l` is the launch, for the arguments.
#define EMBER_ELEMENTWISE_OP(Name, Inputs, Types, Predicate, Params, ...)                       \
  struct Name : OpTraits<Inputs, Types, Predicate> {                                             \
    template <class C>                                                                           \
    EMBER_HOST_DEVICE std::conditional_t<Predicate, bool, C> operator()(                         \
        [[maybe_unused]] const Launch& l, EMBER_ELEMENTWISE_PARAMS_##Params) const {             \
      __VA_ARGS__                                                                                \
    }                                                                                            \
  };
#define EMBER_ELEMENTWISE_PARAMS_x C x
#define EMBER_ELEMENTWISE_PARAMS_ab C a, C b
#define EMBER_ELEMENTWISE_PARAMS_abc C a, C b, C c
#define EMBER_UNARY(Name, Types, expr) \
  EMBER_ELEMENTWISE_OP(Name, 1, Types, false, x, return C(expr);)
#define EMBER_BINARY(Name, Types, expr) \
  EMBER_ELEMENTWISE_OP(Name, 2, Types, false, ab, return C(expr);)
#define EMBER_TERNARY(Name, Types, expr) \
  EMBER_ELEMENTWISE_OP(Name, 3, Types, false, abc, return C(expr);)
#define EMBER_PREDICATE1(Name, expr) \
  EMBER_ELEMENTWISE_OP(Name, 1, kAllTypes, true, x, return bool(expr);)
#define EMBER_PREDICATE2(Name, expr) \
  EMBER_ELEMENTWISE_OP(Name, 2, kAllTypes, true, ab, return bool(expr);)
// A floating-only unary op that is one math function.
#define EMBER_MATH1(Name, fn) EMBER_UNARY(Name, kFloatingTypes, math::fn(x))

namespace op {
// unary.cpp
EMBER_UNARY(Neg, kNumericTypes, -x)
EMBER_ELEMENTWISE_OP(Abs, 1, kNumericTypes, false, x,
                     if constexpr (is_float_v<C>) return math::fabs(x);
                     else return x < C(0) ? C(-x) : x;)
EMBER_ELEMENTWISE_OP(Sign, 1, kAllTypes, false, x,
                     if constexpr (std::is_same_v<C, bool>) return x;
                     else return C((C(0) < x) - (x < C(0)));)
EMBER_MATH1(Sqrt, sqrt)
EMBER_MATH1(Rsqrt, rsqrt)
EMBER_UNARY(Square, kNumericTypes, x * x)
EMBER_MATH1(Exp, exp)
EMBER_MATH1(Exp2, exp2)
EMBER_MATH1(Expm1, expm1)
EMBER_MATH1(Log, log)
EMBER_MATH1(Log2, log2)
EMBER_MATH1(Log10, log10)
EMBER_MATH1(Log1p, log1p)
EMBER_MATH1(Sin, sin)
EMBER_MATH1(Cos, cos)
EMBER_MATH1(Tan, tan)
EMBER_MATH1(Asin, asin)
EMBER_MATH1(Acos, acos)
EMBER_MATH1(Atan, atan)
EMBER_MATH1(Sinh, sinh)
EMBER_MATH1(Cosh, cosh)
EMBER_MATH1(Tanh, tanh)
EMBER_MATH1(Erf, erf)
EMBER_MATH1(Erfc, erfc)
EMBER_UNARY(Reciprocal, kFloatingTypes, C(1) / x)
EMBER_MATH1(Floor, floor)
EMBER_MATH1(Ceil, ceil)
EMBER_MATH1(Trunc, trunc)
EMBER_MATH1(Round, nearbyint)  // half to even, as PyTorch
EMBER_UNARY(Frac, kFloatingTypes, x - math::trunc(x))
// integer: decimals; real[0]: 10^|decimals|, scaled in the direction that keeps it exact.
EMBER_UNARY(RoundDecimals, kFloatingTypes,
            l.integer > 0 ? math::nearbyint(x * real_arg<C>(l, 0)) / real_arg<C>(l, 0)
                          : math::nearbyint(x / real_arg<C>(l, 0)) * real_arg<C>(l, 0))
// Note [clamp and NaN] in unary.cpp; the plan turns absent bounds into the type's extremes.
EMBER_UNARY(Clamp, kNumericTypes, vmin(scalar_arg<C>(l, 1), vmax(scalar_arg<C>(l, 0), x)))
EMBER_TERNARY(ClampTensor, kNumericTypes, vmin(vmax(a, b), c))
EMBER_UNARY(NanToNum, kFloatingTypes,
            x != x              ? real_arg<C>(l, 0)
            : x == C(INFINITY)  ? real_arg<C>(l, 1)
            : x == C(-INFINITY) ? real_arg<C>(l, 2)
                                : x)
// binary.cpp. add/sub: a ± alpha * b as one fma, what nvcc's contraction (--fmad=true, its
// default) makes of it anyway, spelled out so the emulation rounds once too.
EMBER_ELEMENTWISE_OP(Add, 2, kAllTypes, false, ab,
                     if constexpr (std::is_same_v<C, bool>) return a || (scalar_arg<C>(l, 0) && b);
                     else if constexpr (is_float_v<C>) return math::fma(scalar_arg<C>(l, 0), b, a);
                     else return C(a + scalar_arg<C>(l, 0) * b);)
EMBER_ELEMENTWISE_OP(Sub, 2, kNumericTypes, false, ab,
                     if constexpr (is_float_v<C>) return math::fma(-scalar_arg<C>(l, 0), b, a);
                     else return C(a - scalar_arg<C>(l, 0) * b);)
EMBER_ELEMENTWISE_OP(Mul, 2, kAllTypes, false, ab,
                     if constexpr (std::is_same_v<C, bool>) return a && b;
                     else return C(a * b);)
EMBER_ELEMENTWISE_OP(TrueDiv, 2, kNumericTypes, false, ab,
                     if constexpr (is_float_v<C>) return a / b;
                     else return int_div(a, b);)
EMBER_BINARY(FloorDiv, kNumericTypes, floor_div(a, b))
EMBER_ELEMENTWISE_OP(TruncDiv, 2, kNumericTypes, false, ab,
                     if constexpr (is_float_v<C>) return math::trunc(a / b);
                     else return int_div(a, b);)
EMBER_BINARY(Remainder, kNumericTypes, remainder(a, b))
EMBER_ELEMENTWISE_OP(Fmod, 2, kNumericTypes, false, ab,
                     if constexpr (is_float_v<C>) return math::fmod(a, b);
                     else return int_mod(a, b);)
EMBER_BINARY(Pow, kNumericTypes, pow_of(a, b))
// (base, exponent as an operand); real[0]: the exponent, whose common values take exact,
// faster paths (as PyTorch's pow_tensor_scalar).
EMBER_ELEMENTWISE_OP(PowScalar, 2, kNumericTypes, false, ab,
                     const double v = l.real[0];
                     if (v == 1) return a;
                     if (v == 2) return C(a * a);
                     if (v == 3) return C(a * a * a);
                     if constexpr (is_float_v<C>) {
                       if (v == 0.5) return math::sqrt(a);
                       if (v == -0.5) return C(1) / math::sqrt(a);
                       if (v == -1) return C(1) / a;
                       if (v == -2) return C(1) / (a * a);
                     }
                     return pow_of(a, b);)
EMBER_BINARY(Atan2, kFloatingTypes, math::atan2(a, b))
EMBER_BINARY(Maximum, kAllTypes, vmax(a, b))
EMBER_BINARY(Minimum, kAllTypes, vmin(a, b))
EMBER_ELEMENTWISE_OP(Fmax, 2, kAllTypes, false, ab,
                     if constexpr (is_float_v<C>) return math::fmax(a, b);
                     else return a > b ? a : b;)
EMBER_ELEMENTWISE_OP(Fmin, 2, kAllTypes, false, ab,
                     if constexpr (is_float_v<C>) return math::fmin(a, b);
                     else return a < b ? a : b;)
EMBER_TERNARY(Lerp, kFloatingTypes, lerp_of(a, b, c))
EMBER_BINARY(LerpScalar, kFloatingTypes, lerp_of(a, b, scalar_arg<C>(l, 0)))
// self + value * a * b: PyTorch's CUDA expression, contracted by nvcc into one fma.
EMBER_ELEMENTWISE_OP(Addcmul, 3, kNumericTypes, false, abc,
                     if constexpr (is_float_v<C>) return math::fma(scalar_arg<C>(l, 0) * b, c, a);
                     else return C(a + scalar_arg<C>(l, 0) * b * c);)
EMBER_ELEMENTWISE_OP(Addcdiv, 3, kNumericTypes, false, abc,
                     if constexpr (is_float_v<C>) return a + scalar_arg<C>(l, 0) * b / c;
                     else return C(a + int_div(C(scalar_arg<C>(l, 0) * b), c));)
EMBER_BINARY(Hypot, kFloatingTypes, math::hypot(a, b))
EMBER_BINARY(Xlogy, kFloatingTypes, b != b ? b : a == C(0) ? C(0) : a * math::log(b))
// compare.cpp (bool results)
EMBER_PREDICATE2(Eq, a == b)
EMBER_PREDICATE2(Ne, a != b)
EMBER_PREDICATE2(Lt, a < b)
EMBER_PREDICATE2(Le, a <= b)
EMBER_PREDICATE2(Gt, a > b)
EMBER_PREDICATE2(Ge, a >= b)
EMBER_PREDICATE2(LogicalAnd, bool(a) && bool(b))
EMBER_PREDICATE2(LogicalOr, bool(a) || bool(b))
EMBER_PREDICATE2(LogicalXor, bool(a) != bool(b))
EMBER_PREDICATE1(LogicalNot, !bool(x))
EMBER_PREDICATE1(Isnan, x != x)
EMBER_ELEMENTWISE_OP(Isinf, 1, kAllTypes, true, x,
                     if constexpr (is_float_v<C>) return x == C(INFINITY) || x == C(-INFINITY);
                     else return false;)
EMBER_ELEMENTWISE_OP(Isfinite, 1, kAllTypes, true, x,
                     if constexpr (is_float_v<C>) return x == x && x != C(INFINITY) &&
                                                         x != C(-INFINITY);
                     else return true;)
// real[0]/[1]: rtol/atol; flag: equal_nan. Equal, or both NaN with equal_nan, or |a - b| finite
// and <= atol + |rtol * b|, in the compute type (float for integers and bool), as PyTorch.
EMBER_ELEMENTWISE_OP(Isclose, 2, kAllTypes, true, ab,
                     using M = std::conditional_t<is_float_v<C>, C, float>;
                     if (a == b) return true;
                     if constexpr (is_float_v<C>)
                       if (l.flag && a != a && b != b) return true;
                     const M actual = math::fabs(M(a) - M(b));
                     const bool exact = l.real[0] == 0 && l.real[1] == 0;
                     return !exact && actual == actual && actual != M(INFINITY) &&
                            actual <= real_arg<M>(l, 1) + math::fabs(real_arg<M>(l, 0) * M(b));)
EMBER_BINARY(BitwiseAnd, kIntegralTypes, a & b)
EMBER_BINARY(BitwiseOr, kIntegralTypes, a | b)
EMBER_BINARY(BitwiseXor, kIntegralTypes, a ^ b)
EMBER_ELEMENTWISE_OP(BitwiseNot, 1, kIntegralTypes, false, x,
                     if constexpr (std::is_same_v<C, bool>) return !x;
                     else return C(~x);)
EMBER_TERNARY(Where, kAllTypes, a != C(0) ? b : c)  // (condition, x, y) in the compute type
EMBER_BINARY(MaskedFill, kAllTypes, b != C(0) ? scalar_arg<C>(l, 0) : a)  // (x, mask); value
// activation.cpp
EMBER_UNARY(Sigmoid, kFloatingTypes, C(1) / (C(1) + math::exp(-x)))
EMBER_UNARY(Relu, kNumericTypes, vmax(C(0), x))
// real[0]/[1]: the clamp bounds; flag: clamp (eps given)
EMBER_ELEMENTWISE_OP(Logit, 1, kFloatingTypes, false, x,
                     const C lo = real_arg<C>(l, 0), hi = real_arg<C>(l, 1);
                     const C z = l.flag ? (x < lo ? lo : x > hi ? hi : x) : x;
                     return math::log(z / (C(1) - z));)
EMBER_UNARY(LeakyRelu, kFloatingTypes, x > C(0) ? x : x * real_arg<C>(l, 0))
// real[0..2]: alpha * scale, scale, input scale; exp - 1 rather than expm1, as PyTorch's kernel.
EMBER_UNARY(Elu, kFloatingTypes,
            x > C(0) ? x * real_arg<C>(l, 1)
                     : (math::exp(x * real_arg<C>(l, 2)) - C(1)) * real_arg<C>(l, 0))
EMBER_UNARY(Gelu, kFloatingTypes, C(0.5) * x * (C(1) + math::erf(x * C(0.7071067811865476))))
EMBER_UNARY(GeluTanh, kFloatingTypes,  // sqrt(2/pi) and PyTorch's kappa
            C(0.5) * x *
                (C(1) + math::tanh(C(0.7978845608028654) * (x + C(0.044715) * x * x * x))))
EMBER_UNARY(Silu, kFloatingTypes, x / (C(1) + math::exp(-x)))
EMBER_UNARY(Mish, kFloatingTypes, x * math::tanh(math::log1p(math::exp(x))))
// real[0]/[1]: beta, threshold (linear above it)
EMBER_UNARY(Softplus, kFloatingTypes,
            x * real_arg<C>(l, 0) > real_arg<C>(l, 1)
                ? x
                : math::log1p(math::exp(x * real_arg<C>(l, 0))) / real_arg<C>(l, 0))
EMBER_UNARY(Hardtanh, kNumericTypes, vmin(real_arg<C>(l, 1), vmax(real_arg<C>(l, 0), x)))
EMBER_UNARY(Hardsigmoid, kFloatingTypes, hard_sigmoid6(x) / C(6))
EMBER_UNARY(Hardswish, kFloatingTypes, x * hard_sigmoid6(x) / C(6))
// real[0]: lambd. 0 on [-lambd, lambd], x elsewhere (a NaN passes).
EMBER_UNARY(Hardshrink, kFloatingTypes,
            x >= -real_arg<C>(l, 0) && x <= real_arg<C>(l, 0) ? C(0) : x)
// (grad, self); real[0]: threshold. Nothing passes where self <= threshold.
EMBER_BINARY(ThresholdBackward, kFloatingTypes, b <= real_arg<C>(l, 0) ? C(0) : a)
// loss.cpp (pointwise parts)
EMBER_BINARY(MseLoss, kFloatingTypes, (a - b) * (a - b))
EMBER_ELEMENTWISE_OP(SmoothL1Loss, 2, kFloatingTypes, false, ab,  // real[0]: beta
                     const C beta = real_arg<C>(l, 0);
                     const C z = math::fabs(a - b);
                     return z < beta ? C(0.5) * z * z / beta : z - C(0.5) * beta;)
EMBER_ELEMENTWISE_OP(HuberLoss, 2, kFloatingTypes, false, ab,  // real[0]: delta
                     const C delta = real_arg<C>(l, 0);
                     const C z = math::fabs(a - b);
                     return z < delta ? C(0.5) * z * z : delta * (z - C(0.5) * delta);)
// (x, target): each log clamped at -100, as PyTorch's kernels.
EMBER_BINARY(BinaryCrossEntropy, kFloatingTypes,
             (b - C(1)) * vmax(math::log1p(-a), C(-100)) - b * vmax(math::log(a), C(-100)))
EMBER_ELEMENTWISE_OP(BceWithLogits, 2, kFloatingTypes, false, ab,  // (x, target)
                     const C m = vmax(-a, C(0));
                     return (C(1) - b) * a + m + log1p_exp_neg(a, m);)
// (x, target, 1 + (pos_weight - 1) target)
EMBER_ELEMENTWISE_OP(BceWithLogitsWeighted, 3, kFloatingTypes, false, abc,
                     const C m = vmax(-a, C(0));
                     return (C(1) - b) * a + c * (log1p_exp_neg(a, m) + m);)
}  // namespace op

#undef EMBER_MATH1
#undef EMBER_PREDICATE2
#undef EMBER_PREDICATE1
#undef EMBER_TERNARY
#undef EMBER_BINARY
#undef EMBER_UNARY
#undef EMBER_ELEMENTWISE_PARAMS_abc
#undef EMBER_ELEMENTWISE_PARAMS_ab
#undef EMBER_ELEMENTWISE_PARAMS_x
#undef EMBER_ELEMENTWISE_OP

/// The table: f(functor) for `k`, returning true, or false (f not called) for a kernel the cuda
/// backend has none for. Every entry of the list is here: the test of the table
/// (cuda_emulation_test) fails for an entry it does not compare with the CPU backend's.
template <class F>
bool with_op(ElementwiseKernel k, F&& f) {
  using K = ElementwiseKernel;
  switch (k) {
    // clang-format off
    case K::neg: f(op::Neg{}); return true;
    case K::abs: f(op::Abs{}); return true;
    case K::sign: f(op::Sign{}); return true;
    case K::sqrt: f(op::Sqrt{}); return true;
    case K::rsqrt: f(op::Rsqrt{}); return true;
    case K::square: f(op::Square{}); return true;
    case K::exp: f(op::Exp{}); return true;
    case K::exp2: f(op::Exp2{}); return true;
    case K::expm1: f(op::Expm1{}); return true;
    case K::log: f(op::Log{}); return true;
    case K::log2: f(op::Log2{}); return true;
    case K::log10: f(op::Log10{}); return true;
    case K::log1p: f(op::Log1p{}); return true;
    case K::sin: f(op::Sin{}); return true;
    case K::cos: f(op::Cos{}); return true;
    case K::tan: f(op::Tan{}); return true;
    case K::asin: f(op::Asin{}); return true;
    case K::acos: f(op::Acos{}); return true;
    case K::atan: f(op::Atan{}); return true;
    case K::sinh: f(op::Sinh{}); return true;
    case K::cosh: f(op::Cosh{}); return true;
    case K::tanh: f(op::Tanh{}); return true;
    case K::erf: f(op::Erf{}); return true;
    case K::erfc: f(op::Erfc{}); return true;
    case K::reciprocal: f(op::Reciprocal{}); return true;
    case K::floor: f(op::Floor{}); return true;
    case K::ceil: f(op::Ceil{}); return true;
    case K::trunc: f(op::Trunc{}); return true;
    case K::round: f(op::Round{}); return true;
    case K::frac: f(op::Frac{}); return true;
    case K::round_decimals: f(op::RoundDecimals{}); return true;
    case K::clamp: f(op::Clamp{}); return true;
    case K::clamp_tensor: f(op::ClampTensor{}); return true;
    case K::nan_to_num: f(op::NanToNum{}); return true;
    case K::add: f(op::Add{}); return true;
    case K::sub: f(op::Sub{}); return true;
    case K::mul: f(op::Mul{}); return true;
    case K::true_div: f(op::TrueDiv{}); return true;
    case K::floor_div: f(op::FloorDiv{}); return true;
    case K::trunc_div: f(op::TruncDiv{}); return true;
    case K::remainder: f(op::Remainder{}); return true;
    case K::fmod: f(op::Fmod{}); return true;
    case K::pow: f(op::Pow{}); return true;
    case K::pow_scalar: f(op::PowScalar{}); return true;
    case K::atan2: f(op::Atan2{}); return true;
    case K::maximum: f(op::Maximum{}); return true;
    case K::minimum: f(op::Minimum{}); return true;
    case K::fmax: f(op::Fmax{}); return true;
    case K::fmin: f(op::Fmin{}); return true;
    case K::lerp: f(op::Lerp{}); return true;
    case K::lerp_scalar: f(op::LerpScalar{}); return true;
    case K::addcmul: f(op::Addcmul{}); return true;
    case K::addcdiv: f(op::Addcdiv{}); return true;
    case K::hypot: f(op::Hypot{}); return true;
    case K::xlogy: f(op::Xlogy{}); return true;
    case K::eq: f(op::Eq{}); return true;
    case K::ne: f(op::Ne{}); return true;
    case K::lt: f(op::Lt{}); return true;
    case K::le: f(op::Le{}); return true;
    case K::gt: f(op::Gt{}); return true;
    case K::ge: f(op::Ge{}); return true;
    case K::logical_and: f(op::LogicalAnd{}); return true;
    case K::logical_or: f(op::LogicalOr{}); return true;
    case K::logical_xor: f(op::LogicalXor{}); return true;
    case K::logical_not: f(op::LogicalNot{}); return true;
    case K::isnan: f(op::Isnan{}); return true;
    case K::isinf: f(op::Isinf{}); return true;
    case K::isfinite: f(op::Isfinite{}); return true;
    case K::isclose: f(op::Isclose{}); return true;
    case K::bitwise_and: f(op::BitwiseAnd{}); return true;
    case K::bitwise_or: f(op::BitwiseOr{}); return true;
    case K::bitwise_xor: f(op::BitwiseXor{}); return true;
    case K::bitwise_not: f(op::BitwiseNot{}); return true;
    case K::where: f(op::Where{}); return true;
    case K::masked_fill: f(op::MaskedFill{}); return true;
    case K::sigmoid: f(op::Sigmoid{}); return true;
    case K::relu: f(op::Relu{}); return true;
    case K::logit: f(op::Logit{}); return true;
    case K::leaky_relu: f(op::LeakyRelu{}); return true;
    case K::elu: f(op::Elu{}); return true;
    case K::gelu: f(op::Gelu{}); return true;
    case K::gelu_tanh: f(op::GeluTanh{}); return true;
    case K::silu: f(op::Silu{}); return true;
    case K::mish: f(op::Mish{}); return true;
    case K::softplus: f(op::Softplus{}); return true;
    case K::hardtanh: f(op::Hardtanh{}); return true;
    case K::hardsigmoid: f(op::Hardsigmoid{}); return true;
    case K::hardswish: f(op::Hardswish{}); return true;
    case K::hardshrink: f(op::Hardshrink{}); return true;
    case K::threshold_backward: f(op::ThresholdBackward{}); return true;
    case K::mse_loss: f(op::MseLoss{}); return true;
    case K::smooth_l1_loss: f(op::SmoothL1Loss{}); return true;
    case K::huber_loss: f(op::HuberLoss{}); return true;
    case K::binary_cross_entropy: f(op::BinaryCrossEntropy{}); return true;
    case K::binary_cross_entropy_with_logits: f(op::BceWithLogits{}); return true;
    case K::binary_cross_entropy_with_logits_weighted: f(op::BceWithLogitsWeighted{}); return true;
    // clang-format on
    case K::kCount: break;
  }
  return false;
}

/// What the table says of a kernel, for the host: inputs 0 when the cuda backend has none.
struct OpInfo {
  int inputs = 0;
  TypeSet types = 0;
  bool predicate = false;
};
inline OpInfo op_info(ElementwiseKernel k) {
  OpInfo info;
  with_op(k, [&](auto f) {
    using F = std::decay_t<decltype(f)>;
    info = {F::inputs, F::types, F::predicate};
  });
  return info;
}

/// One block's share of out = f(l, in...) over l's layout, S the inputs' storage type.
template <class S, class F>
struct MapBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const Launch& l) {
    const F f{};  // the functors hold no state
    using C = opmath_t<S>;
    using Out = std::conditional_t<F::predicate, bool, S>;
    each_strided<F::inputs + 1>(b, l, [&](char* const* at) {
      const auto in = [&](int k) { return C(*reinterpret_cast<const S*>(at[k + 1])); };
      if constexpr (F::inputs == 1)
        *reinterpret_cast<Out*>(at[0]) = Out(f(l, in(0)));
      else if constexpr (F::inputs == 2)
        *reinterpret_cast<Out*>(at[0]) = Out(f(l, in(0), in(1)));
      else
        *reinterpret_cast<Out*>(at[0]) = Out(f(l, in(0), in(1), in(2)));
    });
  }
};

/// The body of l (launch.cuh): l.op's functor on l.type, when the table has both.
template <class G>
bool with_body(const Launch& l, G&& g) {
  bool found = false;
  with_op(l.op, [&](auto f) {
    using F = std::decay_t<decltype(f)>;
    with_type(l.type, [&](auto type) {
      using S = typename decltype(type)::type;
      if constexpr ((F::types & type_bit(type_of<S>())) != 0) {
        g(Tag<MapBody<S, F>>{});
        found = true;
      }
    });
  });
  return found;
}

}  // namespace ember::cuda::kernels
