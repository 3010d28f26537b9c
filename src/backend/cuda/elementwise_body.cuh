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
#include <utility>

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
// One line per op: its kernel's name in the list (the functor is named after it and registered
// as that kernel's, so the list and the functors are the only places a kernel is named), the
// types it takes, and the expression over x (unary), a, b (binary) or a, b, c (ternary); `l` is
// the launch, for the arguments.
#define EMBER_ELEMENTWISE_OP(Name, Inputs, Types, Predicate, Params, ...)                       \
  struct Name : OpTraits<Inputs, Types, Predicate> {                                             \
    template <class C>                                                                           \
    EMBER_HOST_DEVICE std::conditional_t<Predicate, bool, C> operator()(                         \
        [[maybe_unused]] const Launch& l, EMBER_ELEMENTWISE_PARAMS_##Params) const {             \
      __VA_ARGS__                                                                                \
    }                                                                                            \
  };                                                                                             \
  template <>                                                                                    \
  struct FunctorOf<ElementwiseKernel::Name> {                                                    \
    using type = Name;                                                                           \
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
// FunctorOf<k>::type: kernel k's functor, void for a kernel the cuda backend has none for.
template <ElementwiseKernel>
struct FunctorOf {
  using type = void;
};

// unary.cpp
EMBER_UNARY(neg, kNumericTypes, -x)
EMBER_ELEMENTWISE_OP(abs, 1, kNumericTypes, false, x,
                     if constexpr (is_float_v<C>) return math::fabs(x);
                     else return x < C(0) ? C(-x) : x;)
EMBER_ELEMENTWISE_OP(sign, 1, kAllTypes, false, x,
                     if constexpr (std::is_same_v<C, bool>) return x;
                     else return C((C(0) < x) - (x < C(0)));)
EMBER_MATH1(sqrt, sqrt)
EMBER_MATH1(rsqrt, rsqrt)
EMBER_UNARY(square, kNumericTypes, x * x)
EMBER_MATH1(exp, exp)
EMBER_MATH1(exp2, exp2)
EMBER_MATH1(expm1, expm1)
EMBER_MATH1(log, log)
EMBER_MATH1(log2, log2)
EMBER_MATH1(log10, log10)
EMBER_MATH1(log1p, log1p)
EMBER_MATH1(sin, sin)
EMBER_MATH1(cos, cos)
EMBER_MATH1(tan, tan)
EMBER_MATH1(asin, asin)
EMBER_MATH1(acos, acos)
EMBER_MATH1(atan, atan)
EMBER_MATH1(sinh, sinh)
EMBER_MATH1(cosh, cosh)
EMBER_MATH1(tanh, tanh)
EMBER_MATH1(erf, erf)
EMBER_MATH1(erfc, erfc)
EMBER_UNARY(reciprocal, kFloatingTypes, C(1) / x)
EMBER_MATH1(floor, floor)
EMBER_MATH1(ceil, ceil)
EMBER_MATH1(trunc, trunc)
EMBER_MATH1(round, nearbyint)  // half to even, as PyTorch
EMBER_UNARY(frac, kFloatingTypes, x - math::trunc(x))
// integer: decimals; real[0]: 10^|decimals|, scaled in the direction that keeps it exact.
EMBER_UNARY(round_decimals, kFloatingTypes,
            l.integer > 0 ? math::nearbyint(x * real_arg<C>(l, 0)) / real_arg<C>(l, 0)
                          : math::nearbyint(x / real_arg<C>(l, 0)) * real_arg<C>(l, 0))
// Note [clamp and NaN] in unary.cpp; the plan turns absent bounds into the type's extremes.
EMBER_UNARY(clamp, kNumericTypes, vmin(scalar_arg<C>(l, 1), vmax(scalar_arg<C>(l, 0), x)))
EMBER_TERNARY(clamp_tensor, kNumericTypes, vmin(vmax(a, b), c))
EMBER_UNARY(nan_to_num, kFloatingTypes,
            x != x              ? real_arg<C>(l, 0)
            : x == C(INFINITY)  ? real_arg<C>(l, 1)
            : x == C(-INFINITY) ? real_arg<C>(l, 2)
                                : x)
// binary.cpp. add/sub: a ± alpha * b as one fma, what nvcc's contraction (--fmad=true, its
// default) makes of it anyway, spelled out so the emulation rounds once too.
EMBER_ELEMENTWISE_OP(add, 2, kAllTypes, false, ab,
                     if constexpr (std::is_same_v<C, bool>) return a || (scalar_arg<C>(l, 0) && b);
                     else if constexpr (is_float_v<C>) return math::fma(scalar_arg<C>(l, 0), b, a);
                     else return C(a + scalar_arg<C>(l, 0) * b);)
EMBER_ELEMENTWISE_OP(sub, 2, kNumericTypes, false, ab,
                     if constexpr (is_float_v<C>) return math::fma(-scalar_arg<C>(l, 0), b, a);
                     else return C(a - scalar_arg<C>(l, 0) * b);)
EMBER_ELEMENTWISE_OP(mul, 2, kAllTypes, false, ab,
                     if constexpr (std::is_same_v<C, bool>) return a && b;
                     else return C(a * b);)
EMBER_ELEMENTWISE_OP(true_div, 2, kNumericTypes, false, ab,
                     if constexpr (is_float_v<C>) return a / b;
                     else return int_div(a, b);)
EMBER_BINARY(floor_div, kNumericTypes, kernels::floor_div(a, b))  // the helper, not this functor
EMBER_ELEMENTWISE_OP(trunc_div, 2, kNumericTypes, false, ab,
                     if constexpr (is_float_v<C>) return math::trunc(a / b);
                     else return int_div(a, b);)
EMBER_BINARY(remainder, kNumericTypes, kernels::remainder(a, b))
EMBER_ELEMENTWISE_OP(fmod, 2, kNumericTypes, false, ab,
                     if constexpr (is_float_v<C>) return math::fmod(a, b);
                     else return int_mod(a, b);)
EMBER_BINARY(pow, kNumericTypes, pow_of(a, b))
// (base, exponent as an operand); real[0]: the exponent, whose common values take exact,
// faster paths (as PyTorch's pow_tensor_scalar).
EMBER_ELEMENTWISE_OP(pow_scalar, 2, kNumericTypes, false, ab,
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
EMBER_BINARY(atan2, kFloatingTypes, math::atan2(a, b))
EMBER_BINARY(maximum, kAllTypes, vmax(a, b))
EMBER_BINARY(minimum, kAllTypes, vmin(a, b))
EMBER_ELEMENTWISE_OP(fmax, 2, kAllTypes, false, ab,
                     if constexpr (is_float_v<C>) return math::fmax(a, b);
                     else return a > b ? a : b;)
EMBER_ELEMENTWISE_OP(fmin, 2, kAllTypes, false, ab,
                     if constexpr (is_float_v<C>) return math::fmin(a, b);
                     else return a < b ? a : b;)
EMBER_TERNARY(lerp, kFloatingTypes, lerp_of(a, b, c))
EMBER_BINARY(lerp_scalar, kFloatingTypes, lerp_of(a, b, scalar_arg<C>(l, 0)))
// self + value * a * b: PyTorch's CUDA expression, contracted by nvcc into one fma.
EMBER_ELEMENTWISE_OP(addcmul, 3, kNumericTypes, false, abc,
                     if constexpr (is_float_v<C>) return math::fma(scalar_arg<C>(l, 0) * b, c, a);
                     else return C(a + scalar_arg<C>(l, 0) * b * c);)
EMBER_ELEMENTWISE_OP(addcdiv, 3, kNumericTypes, false, abc,
                     if constexpr (is_float_v<C>) return a + scalar_arg<C>(l, 0) * b / c;
                     else return C(a + int_div(C(scalar_arg<C>(l, 0) * b), c));)
EMBER_BINARY(hypot, kFloatingTypes, math::hypot(a, b))
EMBER_BINARY(xlogy, kFloatingTypes, b != b ? b : a == C(0) ? C(0) : a * math::log(b))
// compare.cpp (bool results)
EMBER_PREDICATE2(eq, a == b)
EMBER_PREDICATE2(ne, a != b)
EMBER_PREDICATE2(lt, a < b)
EMBER_PREDICATE2(le, a <= b)
EMBER_PREDICATE2(gt, a > b)
EMBER_PREDICATE2(ge, a >= b)
EMBER_PREDICATE2(logical_and, bool(a) && bool(b))
EMBER_PREDICATE2(logical_or, bool(a) || bool(b))
EMBER_PREDICATE2(logical_xor, bool(a) != bool(b))
EMBER_PREDICATE1(logical_not, !bool(x))
EMBER_PREDICATE1(isnan, x != x)
EMBER_ELEMENTWISE_OP(isinf, 1, kAllTypes, true, x,
                     if constexpr (is_float_v<C>) return x == C(INFINITY) || x == C(-INFINITY);
                     else return false;)
EMBER_ELEMENTWISE_OP(isfinite, 1, kAllTypes, true, x,
                     if constexpr (is_float_v<C>) return x == x && x != C(INFINITY) &&
                                                         x != C(-INFINITY);
                     else return true;)
// real[0]/[1]: rtol/atol; flag: equal_nan. Equal, or both NaN with equal_nan, or |a - b| finite
// and <= atol + |rtol * b|, in the compute type (float for integers and bool), as PyTorch.
EMBER_ELEMENTWISE_OP(isclose, 2, kAllTypes, true, ab,
                     using M = std::conditional_t<is_float_v<C>, C, float>;
                     if (a == b) return true;
                     if constexpr (is_float_v<C>)
                       if (l.flag && a != a && b != b) return true;
                     const M actual = math::fabs(M(a) - M(b));
                     const bool exact = l.real[0] == 0 && l.real[1] == 0;
                     return !exact && actual == actual && actual != M(INFINITY) &&
                            actual <= real_arg<M>(l, 1) + math::fabs(real_arg<M>(l, 0) * M(b));)
EMBER_BINARY(bitwise_and, kIntegralTypes, a & b)
EMBER_BINARY(bitwise_or, kIntegralTypes, a | b)
EMBER_BINARY(bitwise_xor, kIntegralTypes, a ^ b)
EMBER_ELEMENTWISE_OP(bitwise_not, 1, kIntegralTypes, false, x,
                     if constexpr (std::is_same_v<C, bool>) return !x;
                     else return C(~x);)
EMBER_TERNARY(where, kAllTypes, a != C(0) ? b : c)  // (condition, x, y) in the compute type
EMBER_BINARY(masked_fill, kAllTypes, b != C(0) ? scalar_arg<C>(l, 0) : a)  // (x, mask); value
// activation.cpp
EMBER_UNARY(sigmoid, kFloatingTypes, C(1) / (C(1) + math::exp(-x)))
EMBER_UNARY(relu, kNumericTypes, vmax(C(0), x))
// real[0]/[1]: the clamp bounds; flag: clamp (eps given)
EMBER_ELEMENTWISE_OP(logit, 1, kFloatingTypes, false, x,
                     const C lo = real_arg<C>(l, 0), hi = real_arg<C>(l, 1);
                     const C z = l.flag ? (x < lo ? lo : x > hi ? hi : x) : x;
                     return math::log(z / (C(1) - z));)
EMBER_UNARY(leaky_relu, kFloatingTypes, x > C(0) ? x : x * real_arg<C>(l, 0))
// real[0..2]: alpha * scale, scale, input scale; exp - 1 rather than expm1, as PyTorch's kernel.
EMBER_UNARY(elu, kFloatingTypes,
            x > C(0) ? x * real_arg<C>(l, 1)
                     : (math::exp(x * real_arg<C>(l, 2)) - C(1)) * real_arg<C>(l, 0))
EMBER_UNARY(gelu, kFloatingTypes, C(0.5) * x * (C(1) + math::erf(x * C(0.7071067811865476))))
EMBER_UNARY(gelu_tanh, kFloatingTypes,  // sqrt(2/pi) and PyTorch's kappa
            C(0.5) * x *
                (C(1) + math::tanh(C(0.7978845608028654) * (x + C(0.044715) * x * x * x))))
EMBER_UNARY(silu, kFloatingTypes, x / (C(1) + math::exp(-x)))
EMBER_UNARY(mish, kFloatingTypes, x * math::tanh(math::log1p(math::exp(x))))
// real[0]/[1]: beta, threshold (linear above it)
EMBER_UNARY(softplus, kFloatingTypes,
            x * real_arg<C>(l, 0) > real_arg<C>(l, 1)
                ? x
                : math::log1p(math::exp(x * real_arg<C>(l, 0))) / real_arg<C>(l, 0))
EMBER_UNARY(hardtanh, kNumericTypes, vmin(real_arg<C>(l, 1), vmax(real_arg<C>(l, 0), x)))
EMBER_UNARY(hardsigmoid, kFloatingTypes, hard_sigmoid6(x) / C(6))
EMBER_UNARY(hardswish, kFloatingTypes, x * hard_sigmoid6(x) / C(6))
// real[0]: lambd. 0 on [-lambd, lambd], x elsewhere (a NaN passes).
EMBER_UNARY(hardshrink, kFloatingTypes,
            x >= -real_arg<C>(l, 0) && x <= real_arg<C>(l, 0) ? C(0) : x)
// (grad, self); real[0]: threshold. Nothing passes where self <= threshold.
EMBER_BINARY(threshold_backward, kFloatingTypes, b <= real_arg<C>(l, 0) ? C(0) : a)
// loss.cpp (pointwise parts)
EMBER_BINARY(mse_loss, kFloatingTypes, (a - b) * (a - b))
EMBER_ELEMENTWISE_OP(smooth_l1_loss, 2, kFloatingTypes, false, ab,  // real[0]: beta
                     const C beta = real_arg<C>(l, 0);
                     const C z = math::fabs(a - b);
                     return z < beta ? C(0.5) * z * z / beta : z - C(0.5) * beta;)
EMBER_ELEMENTWISE_OP(huber_loss, 2, kFloatingTypes, false, ab,  // real[0]: delta
                     const C delta = real_arg<C>(l, 0);
                     const C z = math::fabs(a - b);
                     return z < delta ? C(0.5) * z * z : delta * (z - C(0.5) * delta);)
// (x, target): each log clamped at -100, as PyTorch's kernels.
EMBER_BINARY(binary_cross_entropy, kFloatingTypes,
             (b - C(1)) * vmax(math::log1p(-a), C(-100)) - b * vmax(math::log(a), C(-100)))
EMBER_ELEMENTWISE_OP(binary_cross_entropy_with_logits, 2, kFloatingTypes, false, ab,  // (x, target)
                     const C m = vmax(-a, C(0));
                     return (C(1) - b) * a + m + log1p_exp_neg(a, m);)
// (x, target, 1 + (pos_weight - 1) target)
EMBER_ELEMENTWISE_OP(binary_cross_entropy_with_logits_weighted, 3, kFloatingTypes, false, abc,
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
/// backend has none for. It is made from the list itself (every index below kCount), so a new
/// kernel needs only its functor line above; the test of the table (cuda_emulation_test) fails
/// for an entry it does not compare with the CPU backend's.
template <ElementwiseKernel K, class F>
bool with_functor_of(F& f) {
  using Functor = typename op::FunctorOf<K>::type;
  if constexpr (std::is_void_v<Functor>) {
    return false;
  } else {
    f(Functor{});
    return true;
  }
}
template <class F, size_t... I>
bool with_op_among(ElementwiseKernel k, F& f, std::index_sequence<I...>) {
  return ((k == ElementwiseKernel(I) && with_functor_of<ElementwiseKernel(I)>(f)) || ...);
}
template <class F>
bool with_op(ElementwiseKernel k, F&& f) {
  return with_op_among(k, f, std::make_index_sequence<size_t(ElementwiseKernel::kCount)>());
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
