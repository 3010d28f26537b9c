// Unary math: neg, abs, sign, sqrt/rsqrt/square, exp/log families, trigonometric and hyperbolic
// functions, erf/erfc, rounding, reciprocal, clamp, nan_to_num — the front ends and gradients;
// each kernel is an ElementwiseKernel identity (the CPU's in src/backend/cpu/unary.cpp).
#include <cmath>
#include <limits>

#include "autograd/function.h"
#include "ember/creation.h"
#include "ember/math.h"
#include "ops/elementwise.h"
#include "ops/unary_grad.h"

namespace ember {
namespace {

using autograd::Grads;
using autograd::Recorder;
using autograd::Saved;
using autograd::TensorList;
using unary_grad::Keep;
using unary_grad::UnaryGrad;
using unary_grad::unary;
using unary_grad::unary_;

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

using backend::ElementwiseKernel;

// Ops whose integer inputs produce the default float (exp(int) is float32, as in PyTorch).
Tensor float_op(const char* op, ElementwiseKernel k, const Tensor& t,
                const Tensor* target = nullptr) {
  return elementwise(op, k, Promote::IntToFloat, {t}, {}, target);
}
// Ops that keep the input dtype.
Tensor same_op(const char* op, ElementwiseKernel k, const Tensor& t,
               const backend::ElementwiseArgs& args = {}, const Tensor* target = nullptr) {
  return elementwise(op, k, Promote::Default, {t}, args, target);
}

// Integer rounding functions are the identity (bool has no rounding kernel, as in PyTorch).
Tensor rounding_op(const char* op, ElementwiseKernel k, const Tensor& t) {
  if (is_integral(t.dtype(), /*include_bool=*/false)) return t.clone();
  return same_op(op, k, t);
}

}  // namespace

Tensor neg(const Tensor& t) {
  EMBER_CHECK(t.dtype() != kBool, "neg",
              "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
              "to invert a mask, use the `~` or `logical_not()` operator instead.");
  return unary("neg", "NegBackward0", t, Keep::Nothing, neg_grad,
               [&] { return same_op("neg", ElementwiseKernel::neg, t); });
}
Tensor abs(const Tensor& t) {
  return unary("abs", "AbsBackward0", t, Keep::Input, abs_grad,
               [&] { return same_op("abs", ElementwiseKernel::abs, t); });
}
Tensor sign(const Tensor& t) {
  return unary("sign", "SignBackward0", t, Keep::Nothing, zero_grad,
               [&] { return same_op("sign", ElementwiseKernel::sign, t); });
}
// Unary float ops: `name` runs kernel `name` and records NodeBackward0 keeping `keep`.
#define EMBER_FLOAT_UNARY(name, node, keep)                                                 \
  Tensor name(const Tensor& t) {                                                            \
    return unary(#name, node, t, keep, name##_grad,                                         \
                 [&] { return float_op(#name, ElementwiseKernel::name, t); });              \
  }
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
  return same_op("square", ElementwiseKernel::square, t);
}
Tensor floor(const Tensor& t) {
  return unary("floor", "FloorBackward0", t, Keep::Nothing, zero_grad,
               [&] { return rounding_op("floor", ElementwiseKernel::floor, t); });
}
Tensor ceil(const Tensor& t) {
  return unary("ceil", "CeilBackward0", t, Keep::Nothing, zero_grad,
               [&] { return rounding_op("ceil", ElementwiseKernel::ceil, t); });
}
Tensor trunc(const Tensor& t) {
  return unary("trunc", "TruncBackward0", t, Keep::Nothing, zero_grad,
               [&] { return rounding_op("trunc", ElementwiseKernel::trunc, t); });
}
Tensor frac(const Tensor& t) {
  return unary("frac", "FracBackward0", t, Keep::Nothing, identity_grad,
               [&] { return same_op("frac", ElementwiseKernel::frac, t); });
}
Tensor round(const Tensor& t, int64_t decimals) {
  if (decimals == 0)
    return unary("round", "RoundBackward0", t, Keep::Nothing, zero_grad,
                 [&] { return rounding_op("round", ElementwiseKernel::round, t); });
  EMBER_CHECK(t.is_floating_point(), "round", "round with decimals is only supported for ",
              "floating point tensors, got ", t.dtype());
  return unary("round", "RoundBackward1", t, Keep::Nothing, zero_grad, [&] {
    return same_op("round", ElementwiseKernel::round_decimals, t, {.integer = decimals});
  });
}

namespace {
Tensor clamp_impl(const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max) {
  EMBER_CHECK(min || max, "clamp", "At least one of 'min' or 'max' must not be None");
  std::vector<Operand> ops{t};
  if (min) ops.push_back(*min);
  if (max) ops.push_back(*max);
  const Dtype dtype = result_type(ops);
  const Tensor input = t.to(dtype);
  return same_op("clamp", ElementwiseKernel::clamp, input, {.scalar = {min, max}});
}
}  // namespace

Tensor clamp(const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max) {
  return unary("clamp", "ClampBackward1", t, Keep::Input, clamp_grad(min, max),
               [&] { return clamp_impl(t, min, max); });
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
  return unary("clamp_min", "ClampMinBackward0", t, Keep::Input, clamp_grad(min, std::nullopt),
               [&] { return clamp_impl(t, min, std::nullopt); });
}
Tensor clamp_max(const Tensor& t, Scalar max) {
  return unary("clamp_max", "ClampMaxBackward0", t, Keep::Input, clamp_grad(std::nullopt, max),
               [&] { return clamp_impl(t, std::nullopt, max); });
}
Tensor clip(const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max) {
  return clamp(t, min, max);
}

Tensor nan_to_num(const Tensor& t, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  if (!t.is_floating_point()) return t.clone();
  return unary("nan_to_num", "NanToNumBackward0", t, Keep::Input, nan_to_num_grad, [&] {
    // Infinities map to the largest finite value of the tensor's own dtype.
    const double hi = t.dtype() == kFloat16    ? 65504.0
                      : t.dtype() == kBFloat16 ? 3.3895313892515355e38
                      : t.dtype() == kFloat32  ? double(std::numeric_limits<float>::max())
                                               : std::numeric_limits<double>::max();
    return same_op("nan_to_num", ElementwiseKernel::nan_to_num, t,
                   {.real = {nan.value_or(0.0), posinf.value_or(hi), neginf.value_or(-hi)}});
  });
}

// ── methods ─────────────────────────────────────────────────────────────
Tensor Tensor::neg() const { return ember::neg(*this); }
Tensor& Tensor::neg_() {
  EMBER_CHECK(dtype() != kBool, "neg_",
              "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
              "to invert a mask, use the `~` or `logical_not()` operator instead.");
  return unary_("neg_", "NegBackward0", *this, Keep::Nothing, neg_grad,
                [&] { same_op("neg_", ElementwiseKernel::neg, *this, {}, this); });
}
Tensor Tensor::abs() const { return ember::abs(*this); }
Tensor& Tensor::abs_() {
  return unary_("abs_", "AbsBackward0", *this, Keep::Input, abs_grad,
                [&] { same_op("abs_", ElementwiseKernel::abs, *this, {}, this); });
}
Tensor Tensor::sign() const { return ember::sign(*this); }
Tensor Tensor::sqrt() const { return ember::sqrt(*this); }
Tensor& Tensor::sqrt_() {
  return unary_("sqrt_", "SqrtBackward0", *this, Keep::Result, sqrt_grad,
                [&] { float_op("sqrt_", ElementwiseKernel::sqrt, *this, this); });
}
Tensor Tensor::rsqrt() const { return ember::rsqrt(*this); }
Tensor Tensor::square() const { return ember::square(*this); }
Tensor Tensor::exp() const { return ember::exp(*this); }
Tensor& Tensor::exp_() {
  return unary_("exp_", "ExpBackward0", *this, Keep::Result, exp_grad,
                [&] { float_op("exp_", ElementwiseKernel::exp, *this, this); });
}
Tensor Tensor::exp2() const { return ember::exp2(*this); }
Tensor Tensor::expm1() const { return ember::expm1(*this); }
Tensor Tensor::log() const { return ember::log(*this); }
Tensor& Tensor::log_() {
  return unary_("log_", "LogBackward0", *this, Keep::Input, log_grad,
                [&] { float_op("log_", ElementwiseKernel::log, *this, this); });
}
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
Tensor& Tensor::tanh_() {
  return unary_("tanh_", "TanhBackward0", *this, Keep::Result, tanh_grad,
                [&] { float_op("tanh_", ElementwiseKernel::tanh, *this, this); });
}
Tensor Tensor::erf() const { return ember::erf(*this); }
Tensor Tensor::erfc() const { return ember::erfc(*this); }
Tensor Tensor::floor() const { return ember::floor(*this); }
Tensor Tensor::ceil() const { return ember::ceil(*this); }
Tensor Tensor::round(int64_t decimals) const { return ember::round(*this, decimals); }
Tensor Tensor::trunc() const { return ember::trunc(*this); }
Tensor Tensor::frac() const { return ember::frac(*this); }
Tensor Tensor::reciprocal() const { return ember::reciprocal(*this); }
Tensor& Tensor::reciprocal_() {
  return unary_("reciprocal_", "ReciprocalBackward0", *this, Keep::Result, reciprocal_grad,
                [&] { float_op("reciprocal_", ElementwiseKernel::reciprocal, *this, this); });
}
Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  return ember::clamp(*this, min, max);
}
Tensor Tensor::clamp(const Tensor& min, const Tensor& max) const {
  return ember::clamp(*this, min, max);
}
Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) {
  EMBER_CHECK(min || max, "clamp_", "At least one of 'min' or 'max' must not be None");
  // The bounds take part in promotion; in place, the result must stay self's dtype.
  std::vector<Operand> ops{*this};
  if (min) ops.push_back(*min);
  if (max) ops.push_back(*max);
  const Dtype dtype = result_type(ops);
  EMBER_CHECK(dtype == this->dtype(), "clamp_", "result type ", dtype,
              " can't be cast to the desired output type ", this->dtype());
  return unary_("clamp_", "ClampBackward1", *this, Keep::Input, clamp_grad(min, max),
                [&] {
                  same_op("clamp_", ElementwiseKernel::clamp, *this, {.scalar = {min, max}}, this);
                });
}
Tensor Tensor::clamp_min(Scalar min) const { return ember::clamp_min(*this, min); }
Tensor Tensor::clamp_max(Scalar max) const { return ember::clamp_max(*this, max); }
Tensor Tensor::nan_to_num(std::optional<double> nan, std::optional<double> posinf,
                          std::optional<double> neginf) const {
  return ember::nan_to_num(*this, nan, posinf, neginf);
}

}  // namespace ember
