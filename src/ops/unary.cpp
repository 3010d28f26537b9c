// Unary math: neg, abs, sign, sqrt/rsqrt/square, exp/log families, trigonometric and hyperbolic
// functions, erf/erfc, rounding, reciprocal, clamp, nan_to_num — the front ends and gradients;
// each kernel is an ElementwiseKernel identity (the CPU's in src/backend/cpu/unary.cpp).
#include <cmath>
#include <limits>

#include "ember/creation.h"
#include "ember/math.h"
#include "ops/elementwise.h"
#include "ops/op_prelude.h"
#include "ops/unary_op.h"

namespace ember {
namespace {

using backend::ElementwiseKernel;
using unary_op::Keep;
using unary_op::UnaryGrad;
using unary_op::UnaryOp;
using unary_op::unary;
using unary_op::unary_;

Tensor zero_grad(const Tensor& g, const Tensor&) { return zeros_like(g); }
Tensor where_zero(const Tensor& keep, const Tensor& g) { return where(keep, g, 0); }

// derivatives.yaml's formulas (`s` is the kept input or result).
Tensor neg_grad(const Tensor& g, const Tensor&) { return -g; }
Tensor abs_grad(const Tensor& g, const Tensor& s) { return g * s.sign(); }
Tensor sqrt_grad(const Tensor& g, const Tensor& y) { return g / (2 * y); }
Tensor rsqrt_grad(const Tensor& g, const Tensor& y) { return -0.5 * g * y.pow(3); }
Tensor exp_grad(const Tensor& g, const Tensor& y) { return g * y; }
Tensor exp2_grad(const Tensor& g, const Tensor& y) { return g * y * M_LN2; }
Tensor expm1_grad(const Tensor& g, const Tensor& y) { return g * (y + 1); }
Tensor log_grad(const Tensor& g, const Tensor& s) { return g / s; }
Tensor log2_grad(const Tensor& g, const Tensor& s) { return g / (s * M_LN2); }
Tensor log10_grad(const Tensor& g, const Tensor& s) { return g / (s * M_LN10); }
Tensor log1p_grad(const Tensor& g, const Tensor& s) { return g / (s + 1); }
Tensor sin_grad(const Tensor& g, const Tensor& s) { return g * s.cos(); }
Tensor cos_grad(const Tensor& g, const Tensor& s) { return g * -s.sin(); }
Tensor tan_grad(const Tensor& g, const Tensor& y) { return g * (1 + y.pow(2)); }
Tensor asin_grad(const Tensor& g, const Tensor& s) { return g * (-s * s + 1).rsqrt(); }
Tensor acos_grad(const Tensor& g, const Tensor& s) { return g * -((-s * s + 1).rsqrt()); }
Tensor atan_grad(const Tensor& g, const Tensor& s) { return g / (s * s + 1); }
Tensor sinh_grad(const Tensor& g, const Tensor& s) { return g * s.cosh(); }
Tensor cosh_grad(const Tensor& g, const Tensor& s) { return g * s.sinh(); }
Tensor tanh_grad(const Tensor& g, const Tensor& y) { return g * (1 - y * y); }
Tensor erf_grad(const Tensor& g, const Tensor& s) {
  return 2 / std::sqrt(M_PI) * (-s * s).exp() * g;
}
Tensor erfc_grad(const Tensor& g, const Tensor& s) {
  return -2 / std::sqrt(M_PI) * (-s * s).exp() * g;
}
Tensor reciprocal_grad(const Tensor& g, const Tensor& y) { return -g * (y * y); }
Tensor identity_grad(const Tensor& g, const Tensor&) { return g; }
Tensor nan_to_num_grad(const Tensor& g, const Tensor& s) { return g * s.isfinite(); }

// clamp's subgradient (PyTorch's clamp_backward): the gradient passes where min <= x <= max,
// bounds included; a NaN bound passes nothing.
UnaryGrad clamp_grad(std::optional<Scalar> min, std::optional<Scalar> max) {
  return [min, max](const Tensor& g, const Tensor& s) {
    if (min && max) return where_zero(logical_and(s >= *min, s <= *max), g);
    return where_zero(min ? s >= *min : s <= *max, g);
  };
}

// ── each op's definition, shared by its forms ────────────────────────────────────────────────

void check_negatable(const char* op, const Tensor& t) {
  EMBER_CHECK(t.dtype() != kBool, op,
              "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
              "to invert a mask, use the `~` or `logical_not()` operator instead.");
}
const UnaryOp& neg_op() {
  static const UnaryOp d{.op = "neg", .inplace = "neg_", .node = "NegBackward0",
                         .keep = Keep::Nothing, .grad = neg_grad, .kernel = ElementwiseKernel::neg};
  return d;
}
const UnaryOp& abs_op() {
  static const UnaryOp d{.op = "abs", .inplace = "abs_", .node = "AbsBackward0",
                         .keep = Keep::Input, .grad = abs_grad, .kernel = ElementwiseKernel::abs};
  return d;
}
const UnaryOp& sign_op() {
  static const UnaryOp d{.op = "sign", .inplace = nullptr, .node = "SignBackward0",
                         .keep = Keep::Nothing, .grad = zero_grad,
                         .kernel = ElementwiseKernel::sign};
  return d;
}
const UnaryOp& frac_op() {
  static const UnaryOp d{.op = "frac", .inplace = nullptr, .node = "FracBackward0",
                         .keep = Keep::Nothing, .grad = identity_grad,
                         .kernel = ElementwiseKernel::frac};
  return d;
}
// Rounding (floor, ceil, trunc, round) has a zero gradient.
UnaryOp rounding(const char* op, const char* node, ElementwiseKernel kernel,
                 backend::ElementwiseArgs args = {}) {
  return {.op = op, .inplace = nullptr, .node = node, .keep = Keep::Nothing, .grad = zero_grad,
          .kernel = kernel, .args = args};
}
// Integer rounding is the identity (bool has no rounding kernel, as in PyTorch).
Tensor round_like_pytorch(const UnaryOp& d, const Tensor& t) {
  return unary(d, t, [&] {
    if (is_integral(t.dtype(), /*include_bool=*/false)) return t.clone();
    return elementwise(d.op, d.kernel, d.promote, {t}, d.args);
  });
}
UnaryOp clamp_op(const char* op, const char* inplace, const char* node,
                 std::optional<Scalar> min, std::optional<Scalar> max) {
  return {.op = op, .inplace = inplace, .node = node, .keep = Keep::Input,
          .grad = clamp_grad(min, max), .kernel = ElementwiseKernel::clamp,
          .args = {.scalar = {min, max}}};
}
// The bounds take part in promotion (clamp(int tensor, 0.5) is float).
Dtype clamp_dtype(const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max,
                  const char* op) {
  EMBER_CHECK(min || max, op, "At least one of 'min' or 'max' must not be None");
  std::vector<Operand> ops{t};
  if (min) ops.push_back(*min);
  if (max) ops.push_back(*max);
  return result_type(ops);
}
Tensor clamp_impl(const UnaryOp& d, const Tensor& t) {
  const auto& [min, max] = d.args.scalar;
  const Dtype dtype = clamp_dtype(t, min, max, d.op);
  return unary(d, t, [&] {
    return elementwise(d.op, d.kernel, d.promote, {t.to(dtype)}, d.args);
  });
}

}  // namespace

Tensor neg(const Tensor& t) {
  check_negatable("neg", t);
  return unary(neg_op(), t);
}
Tensor abs(const Tensor& t) { return unary(abs_op(), t); }
Tensor sign(const Tensor& t) { return unary(sign_op(), t); }
// Unary float ops: `name` runs kernel `name` (integer inputs give the default float dtype) and
// records NodeBackward0 keeping `keep`; name##_op() is the definition its in-place form reuses.
#define EMBER_FLOAT_UNARY(name, node_name, kept)                                             \
  namespace {                                                                                \
  const UnaryOp& name##_op() {                                                               \
    static const UnaryOp d{.op = #name, .inplace = #name "_", .node = node_name,             \
                           .keep = kept, .grad = name##_grad,                                \
                           .kernel = ElementwiseKernel::name, .promote = Promote::IntToFloat}; \
    return d;                                                                                \
  }                                                                                          \
  }                                                                                          \
  Tensor name(const Tensor& t) { return unary(name##_op(), t); }
EMBER_FLOAT_UNARY(sqrt, "SqrtBackward0", Keep::Result)
EMBER_FLOAT_UNARY(rsqrt, "RsqrtBackward0", Keep::Result)
EMBER_FLOAT_UNARY(exp, "ExpBackward0", Keep::Result)
EMBER_FLOAT_UNARY(exp2, "Exp2Backward0", Keep::Result)
EMBER_FLOAT_UNARY(expm1, "Expm1Backward0", Keep::Result)
EMBER_FLOAT_UNARY(log, "LogBackward0", Keep::Input)
EMBER_FLOAT_UNARY(log2, "Log2Backward0", Keep::Input)
EMBER_FLOAT_UNARY(log10, "Log10Backward0", Keep::Input)
EMBER_FLOAT_UNARY(log1p, "Log1PBackward0", Keep::Input)
EMBER_FLOAT_UNARY(sin, "SinBackward0", Keep::Input)
EMBER_FLOAT_UNARY(cos, "CosBackward0", Keep::Input)
EMBER_FLOAT_UNARY(tan, "TanBackward0", Keep::Result)
EMBER_FLOAT_UNARY(asin, "AsinBackward0", Keep::Input)
EMBER_FLOAT_UNARY(acos, "AcosBackward0", Keep::Input)
EMBER_FLOAT_UNARY(atan, "AtanBackward0", Keep::Input)
EMBER_FLOAT_UNARY(sinh, "SinhBackward0", Keep::Input)
EMBER_FLOAT_UNARY(cosh, "CoshBackward0", Keep::Input)
EMBER_FLOAT_UNARY(tanh, "TanhBackward0", Keep::Result)
EMBER_FLOAT_UNARY(erf, "ErfBackward0", Keep::Input)
EMBER_FLOAT_UNARY(erfc, "ErfcBackward0", Keep::Input)
EMBER_FLOAT_UNARY(reciprocal, "ReciprocalBackward0", Keep::Result)
#undef EMBER_FLOAT_UNARY
Tensor square(const Tensor& t) {
  if (t.dtype() == kBool) return square(t.to(kInt64));
  // PyTorch's square is pow(t, 2): its gradient is PowBackward0.
  if (t.requires_grad() && is_grad_enabled()) return t.pow(2);
  return elementwise("square", ElementwiseKernel::square, Promote::Default, {t});
}
Tensor floor(const Tensor& t) {
  return round_like_pytorch(rounding("floor", "FloorBackward0", ElementwiseKernel::floor), t);
}
Tensor ceil(const Tensor& t) {
  return round_like_pytorch(rounding("ceil", "CeilBackward0", ElementwiseKernel::ceil), t);
}
Tensor trunc(const Tensor& t) {
  return round_like_pytorch(rounding("trunc", "TruncBackward0", ElementwiseKernel::trunc), t);
}
Tensor frac(const Tensor& t) { return unary(frac_op(), t); }
Tensor round(const Tensor& t, int64_t decimals) {
  if (decimals == 0)
    return round_like_pytorch(rounding("round", "RoundBackward0", ElementwiseKernel::round), t);
  EMBER_CHECK(t.is_floating_point(), "round", "round with decimals is only supported for ",
              "floating point tensors, got ", t.dtype());
  return unary(rounding("round", "RoundBackward1", ElementwiseKernel::round_decimals,
                        {.integer = decimals}),
               t);
}

Tensor clamp(const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max) {
  return clamp_impl(clamp_op("clamp", "clamp_", "ClampBackward1", min, max), t);
}
Tensor clamp(const Tensor& t, const Tensor& min, const Tensor& max) {
  Recorder rec("clamp", {&t, &min, &max});
  Tensor out =
      elementwise("clamp", ElementwiseKernel::clamp_tensor, Promote::Default, {t, min, max});
  // PyTorch's clamp_backward_min_max: x between the bounds (inclusive) takes the gradient;
  // else the bound that won does (max when the bounds cross).
  if (rec)
    rec.record("ClampBackward0", {out}, {t, min, max}, [](const Grads& g, const Saved& s) {
      const Tensor &x = s[0], &lo = s[1], &hi = s[2];
      return TensorList{where_zero(logical_and(x >= lo, x <= hi), g[0]),
                        where_zero(logical_and(x < lo, lo < hi), g[0]),
                        where_zero(logical_or(x > hi, hi < lo), g[0])};
    });
  return out;
}
Tensor clamp_min(const Tensor& t, Scalar min) {
  return clamp_impl(clamp_op("clamp_min", nullptr, "ClampMinBackward0", min, std::nullopt), t);
}
Tensor clamp_max(const Tensor& t, Scalar max) {
  return clamp_impl(clamp_op("clamp_max", nullptr, "ClampMaxBackward0", std::nullopt, max), t);
}
Tensor clip(const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max) {
  return clamp(t, min, max);
}

Tensor nan_to_num(const Tensor& t, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  if (!t.is_floating_point()) return t.clone();
  // Infinities map to the largest finite value of the tensor's own dtype.
  const double hi = t.dtype() == kFloat16    ? 65504.0
                    : t.dtype() == kBFloat16 ? 3.3895313892515355e38
                    : t.dtype() == kFloat32  ? double(std::numeric_limits<float>::max())
                                             : std::numeric_limits<double>::max();
  return unary({.op = "nan_to_num", .inplace = nullptr, .node = "NanToNumBackward0",
                .keep = Keep::Input, .grad = nan_to_num_grad,
                .kernel = ElementwiseKernel::nan_to_num,
                .args = {.real = {nan.value_or(0.0), posinf.value_or(hi), neginf.value_or(-hi)}}},
               t);
}

// ── methods ─────────────────────────────────────────────────────────────
Tensor Tensor::neg() const { return ember::neg(*this); }
Tensor& Tensor::neg_() const {
  check_negatable("neg_", *this);
  return unary_(neg_op(), mut());
}
Tensor Tensor::abs() const { return ember::abs(*this); }
Tensor& Tensor::abs_() const { return unary_(abs_op(), mut()); }
Tensor Tensor::sign() const { return ember::sign(*this); }
Tensor Tensor::sqrt() const { return ember::sqrt(*this); }
Tensor& Tensor::sqrt_() const { return unary_(sqrt_op(), mut()); }
Tensor Tensor::rsqrt() const { return ember::rsqrt(*this); }
Tensor Tensor::square() const { return ember::square(*this); }
Tensor Tensor::exp() const { return ember::exp(*this); }
Tensor& Tensor::exp_() const { return unary_(exp_op(), mut()); }
Tensor Tensor::exp2() const { return ember::exp2(*this); }
Tensor Tensor::expm1() const { return ember::expm1(*this); }
Tensor Tensor::log() const { return ember::log(*this); }
Tensor& Tensor::log_() const { return unary_(log_op(), mut()); }
Tensor Tensor::log2() const { return ember::log2(*this); }
Tensor Tensor::log10() const { return ember::log10(*this); }
Tensor Tensor::log1p() const { return ember::log1p(*this); }
Tensor Tensor::sin() const { return ember::sin(*this); }
Tensor Tensor::cos() const { return ember::cos(*this); }
Tensor Tensor::tan() const { return ember::tan(*this); }
Tensor Tensor::asin() const { return ember::asin(*this); }
Tensor Tensor::acos() const { return ember::acos(*this); }
Tensor Tensor::atan() const { return ember::atan(*this); }
Tensor Tensor::sinh() const { return ember::sinh(*this); }
Tensor Tensor::cosh() const { return ember::cosh(*this); }
Tensor Tensor::tanh() const { return ember::tanh(*this); }
Tensor& Tensor::tanh_() const { return unary_(tanh_op(), mut()); }
Tensor Tensor::erf() const { return ember::erf(*this); }
Tensor Tensor::erfc() const { return ember::erfc(*this); }
Tensor Tensor::floor() const { return ember::floor(*this); }
Tensor Tensor::ceil() const { return ember::ceil(*this); }
Tensor Tensor::round(int64_t decimals) const { return ember::round(*this, decimals); }
Tensor Tensor::trunc() const { return ember::trunc(*this); }
Tensor Tensor::frac() const { return ember::frac(*this); }
Tensor Tensor::reciprocal() const { return ember::reciprocal(*this); }
Tensor& Tensor::reciprocal_() const { return unary_(reciprocal_op(), mut()); }
Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  return ember::clamp(*this, min, max);
}
Tensor Tensor::clamp(const Tensor& min, const Tensor& max) const {
  return ember::clamp(*this, min, max);
}
Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) const {
  // In place, the result must stay self's dtype.
  const Dtype dtype = clamp_dtype(*this, min, max, "clamp_");
  EMBER_CHECK(dtype == this->dtype(), "clamp_", "result type ", dtype,
              " can't be cast to the desired output type ", this->dtype());
  return unary_(clamp_op("clamp", "clamp_", "ClampBackward1", min, max), mut());
}
Tensor Tensor::clamp_min(Scalar min) const { return ember::clamp_min(*this, min); }
Tensor Tensor::clamp_max(Scalar max) const { return ember::clamp_max(*this, max); }
Tensor Tensor::nan_to_num(std::optional<double> nan, std::optional<double> posinf,
                          std::optional<double> neginf) const {
  return ember::nan_to_num(*this, nan, posinf, neginf);
}

}  // namespace ember
