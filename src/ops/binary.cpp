// Binary arithmetic: add, sub, mul, div (true/floor/trunc), floor_divide, remainder, fmod, pow,
// atan2, maximum/minimum, fmax/fmin, lerp, addcmul/addcdiv, hypot, xlogy — with their in-place
// forms and the Tensor methods: the front ends and gradients; each kernel is an ElementwiseKernel
// identity (the CPU's in src/backend/cpu/binary.cpp).
#include <cmath>

#include "ember/creation.h"
#include "ember/math.h"
#include "ops/elementwise.h"
#include "ops/op_prelude.h"

namespace ember {
namespace {

using backend::ElementwiseKernel;

// lerp does not promote: end (and a tensor weight) must have start's dtype.
void check_lerp_dtype(const Tensor& start, const Tensor& other, const char* name) {
  EMBER_CHECK(start.dtype() == other.dtype(), "lerp", "expected dtype ", start.dtype(), " for `",
              name, "` but got dtype ", other.dtype());
}

void check_not_bool_sub(const Tensor& a, const Operand& b) {
  const bool b_bool = b.tensor() ? b.tensor()->dtype() == kBool : b.scalar().is_bool();
  EMBER_CHECK(!(a.dtype() == kBool && b_bool), "sub",
              "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
              "`^` or `logical_xor()` operator instead.");
  EMBER_CHECK(!(a.dtype() == kBool || b_bool), "sub",
              "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
              "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
}

Tensor div_impl(const char* op, const Operand& a, const Operand& b,
                const std::optional<std::string>& mode, const Tensor* target) {
  if (!mode) return elementwise(op, ElementwiseKernel::true_div, Promote::IntToFloat, {a, b}, {},
                                target);
  if (*mode == "floor")
    return elementwise(op, ElementwiseKernel::floor_div, Promote::Default, {a, b}, {}, target);
  if (*mode == "trunc")
    return elementwise(op, ElementwiseKernel::trunc_div, Promote::Default, {a, b}, {}, target);
  fail(op, "expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", *mode, "'");
}

// pow with a scalar exponent (its kernel has fast paths for the common exponents).
Tensor pow_scalar_impl(const char* op, const Tensor& base, Scalar e, const Tensor* target) {
  if (is_integral(base.dtype(), true) && !e.is_floating_point())
    EMBER_CHECK(e.to_int() >= 0, op, "Integers to negative integer powers are not allowed.");
  return elementwise(op, ElementwiseKernel::pow_scalar, Promote::Default, {base, e},
                     {.real = {e.to_double()}}, target);
}

// addcdiv refuses integer division (PyTorch's message).
void check_addcdiv(const char* op, const Tensor& t1, const Tensor& t2) {
  EMBER_CHECK(!(is_integral(t1.dtype(), true) && is_integral(t2.dtype(), true)), op,
              "Integer division with addcdiv is no longer supported, and in a future release "
              "addcdiv will perform a true division of tensor1 and tensor2.");
}

// ── backward formulas (derivatives.yaml's, in differentiable ops) ─────────
Tensor scaled(const Tensor& g, Scalar alpha) {
  return alpha.is_integral() && alpha.to_int() == 1 ? g : g * alpha;
}

// a + alpha * b and a - alpha * b: the gradient passes through, scaled for b.
autograd::BackwardFn add_backward(Scalar alpha, bool subtract) {
  // alpha == 1, the common case: closures without captures fit std::function's inline buffer,
  // so recording `a + b` does not allocate for its formula.
  if (alpha.is_integral() && alpha.to_int() == 1) {
    if (subtract) return [](const Grads& g, const Saved&) { return TensorList{g[0], -g[0]}; };
    return [](const Grads& g, const Saved&) { return TensorList{g[0], g[0]}; };
  }
  return [alpha, subtract](const Grads& g, const Saved&) {
    Tensor gb = scaled(g[0], alpha);
    return TensorList{g[0], subtract ? -gb : gb};
  };
}

// a * b. Saved: {a if b needs a gradient, b if a needs one}.
TensorList mul_backward(const Grads& g, const Saved& s) {
  return {s[1].defined() ? g[0] * s[1] : Tensor(), s[0].defined() ? g[0] * s[0] : Tensor()};
}

TensorList div_backward(const Grads& g, const Saved& s) {
  // s = {a (only when b requires grad), b}
  const Tensor ga = g[0] / s[1];
  return {ga, s[0].defined() ? -ga * s[0] / s[1] : Tensor()};
}

// d/da a^e = e * a^(e-1), zero where e == 0 (PyTorch's pow_backward, also at a == 0).
Tensor pow_backward_self(const Tensor& g, const Tensor& a, Scalar e) {
  if (e.to_double() == 0) return zeros_like(a, {.dtype = g.dtype()});
  return g * (a.pow(e.to_double() - 1) * e);
}
Tensor pow_backward_self(const Tensor& g, const Tensor& a, const Tensor& e) {
  return where(e == 0, zeros({}, {.dtype = g.dtype()}), g * e * a.pow(e - 1));
}
// d/de a^e = a^e * log(a), zero where a == 0 and e >= 0 (the limit PyTorch takes).
Tensor pow_backward_exponent(const Tensor& g, const Tensor& a, const Tensor& e,
                             const Tensor& result) {
  return where((a == 0) & (e >= 0), zeros({}, {.dtype = g.dtype()}), g * result * a.log());
}

// `t` when `user` needs a gradient (which `t` enters), else nothing: constants save nothing.
Tensor if_needed_by(const Tensor& user, const Tensor& t) {
  return user.requires_grad() ? t : Tensor();
}

// a ^ e for tensors. Saved: {a, e, a ^ e (only when e needs a gradient)}.
TensorList pow_tensor_backward(const Grads& g, const Saved& s) {
  return {pow_backward_self(g[0], s[0], s[1]),
          s[2].defined() ? pow_backward_exponent(g[0], s[0], s[1], s[2]) : Tensor()};
}

// What PyTorch 1.13 records for an op with no derivative formula: a node that refuses backward.
void record_not_implemented(Recorder& rec, const Tensor& out, const char* aten_name) {
  rec.record("torch::autograd::NotImplemented", {out}, {},
             [aten_name](const Grads&, const Saved&) -> TensorList {
               fail("backward", "derivative for aten::", aten_name, " is not implemented");
             });
}

// maximum/minimum (PyTorch's formula): the larger (smaller) operand takes the gradient, ties
// split it in half; a NaN in either passes it to both.
TensorList max_min_backward(const Grads& g, const Saved& s, bool is_max) {
  const Tensor &a = s[0], &b = s[1];
  const Tensor shared = where(a == b, g[0] / 2, g[0]);
  return {shared.masked_fill(is_max ? a < b : a > b, 0),
          shared.masked_fill(is_max ? a > b : a < b, 0)};
}

// fmax/fmin: the operand the result came from takes all of it (self at ties and where other is
// NaN).
TensorList fmax_fmin_backward(const Grads& g, const Saved& s, bool is_max) {
  const Tensor &a = s[0], &b = s[1];
  const Tensor self_won = logical_or(is_max ? a >= b : a <= b, b.isnan());
  return {g[0].masked_fill(logical_not(self_won), 0), g[0].masked_fill(self_won, 0)};
}

// addcmul: self + v * t1 * t2. Saved: {t1, t2}.
autograd::BackwardFn addcmul_backward(Scalar v) {
  return [v](const Grads& g, const Saved& s) {
    return TensorList{g[0], s[1].defined() ? g[0] * (s[1] * v) : Tensor(),
                      s[0].defined() ? g[0] * (s[0] * v) : Tensor()};
  };
}
// addcdiv: self + v * t1 / t2. Saved: {t1 (only when t2 needs a gradient), t2}.
autograd::BackwardFn addcdiv_backward(Scalar v) {
  return [v](const Grads& g, const Saved& s) {
    return TensorList{g[0], g[0] * (v / s[1]),
                      s[0].defined() ? -g[0] * v * s[0] / (s[1] * s[1]) : Tensor()};
  };
}

// ── every form of a binary op through one helper ─────────────────────────
// `self <op> other` where other is a tensor or a scalar (a scalar is no autograd input), out of
// place (`into` null: a new result) or in place (`into` is self, which the op writes). The op
// defines its forward and node once for all four forms: `forward(into)` runs the kernel and
// returns the result; `record(rec, result, self_value)` adds the node when anything needs a
// gradient, with self_value the value self had before the op — self itself out of place, in
// place a copy taken before the kernel writes it, when `keeps_self` says the backward needs it.
Recorder enter(const char* op, const Tensor& self, const Operand& other, bool in_place) {
  const Tensor* o = other.tensor();
  if (in_place) {
    if (o) return Recorder(Recorder::InPlace{}, op, self, {o});
    return Recorder(Recorder::InPlace{}, op, self, {});
  }
  if (o) return Recorder(op, {&self, o});
  return Recorder(op, {&self});
}
template <class Forward, class Record>
Tensor binary(const char* op, const Tensor& self, const Operand& other, const Tensor* into,
              bool keeps_self, const Forward& forward, const Record& record) {
  const Tensor before = into ? autograd::original_self(self, keeps_self) : Tensor();
  Recorder rec = enter(op, self, other, into != nullptr);
  Tensor out = forward(into);
  if (rec) record(rec, out, into ? before : self);
  return out;
}

// The ops with all four forms (the free functions and methods below call these).
Tensor add_forms(const Tensor& a, const Operand& b, Scalar alpha, const Tensor* into) {
  const char* op = into ? "add_" : "add";
  return binary(
      op, a, b, into, false,
      [&](const Tensor* target) {
        return elementwise(op, ElementwiseKernel::add, Promote::Default, {a, b},
                           {.scalar = {alpha}}, target);
      },
      [&](Recorder& rec, const Tensor& out, const Tensor&) {
        rec.record(b.tensor() ? "AddBackward0" : "AddBackward1", {out}, {},
                   add_backward(alpha, false));
      });
}
// a - alpha * b; the scalar form's one gradient is a's.
Tensor sub_forms(const Tensor& a, const Operand& b, Scalar alpha, const Tensor* into) {
  check_not_bool_sub(a, b);
  const char* op = into ? "sub_" : "sub";
  return binary(
      op, a, b, into, false,
      [&](const Tensor* target) {
        return elementwise(op, ElementwiseKernel::sub, Promote::Default, {a, b},
                           {.scalar = {alpha}}, target);
      },
      [&](Recorder& rec, const Tensor& out, const Tensor&) {
        if (b.tensor()) rec.record("SubBackward0", {out}, {}, add_backward(alpha, true));
        else rec.record("SubBackward1", {out}, {}, add_backward(alpha, false));
      });
}
Tensor mul_forms(const Tensor& a, const Operand& b, const Tensor* into) {
  const char* op = into ? "mul_" : "mul";
  const Tensor* bt = b.tensor();
  return binary(
      op, a, b, into, bt && bt->requires_grad(),
      [&](const Tensor* target) {
        return elementwise(op, ElementwiseKernel::mul, Promote::Default, {a, b}, {}, target);
      },
      [&](Recorder& rec, const Tensor& out, const Tensor& a_value) {
        if (bt)
          rec.record("MulBackward0", {out},
                     {bt->requires_grad() ? a_value : Tensor(), if_needed_by(a, *bt)},
                     mul_backward);
        else
          rec.record("MulBackward1", {out}, {}, [s = b.scalar()](const Grads& g, const Saved&) {
            return TensorList{g[0] * s};
          });
      });
}
Tensor div_forms(const Tensor& a, const Operand& b, const std::optional<std::string>& mode,
                 const Tensor* into) {
  const char* op = into ? "div_" : "div";
  const Tensor* bt = b.tensor();
  return binary(
      op, a, b, into, !mode && bt && bt->requires_grad(),
      [&](const Tensor* target) { return div_impl(op, a, b, mode, target); },
      [&](Recorder& rec, const Tensor& out, const Tensor& a_value) {
        if (bt && !mode)
          rec.record("DivBackward0", {out}, {bt->requires_grad() ? a_value : Tensor(), *bt},
                     div_backward);
        else if (bt)  // floor/trunc division is piecewise constant: zero gradients, as PyTorch
          rec.record("DivBackward2", {out}, {}, [](const Grads& g, const Saved&) {
            return TensorList{zeros_like(g[0]), zeros_like(g[0])};
          });
        else
          rec.record(mode ? "DivBackward3" : "DivBackward1", {out}, {},
                     [s = b.scalar(), exact = !mode](const Grads& g, const Saved&) {
                       return TensorList{exact ? g[0] / s : zeros_like(g[0])};
                     });
      });
}
Tensor pow_forms(const Tensor& base, const Operand& exponent, const Tensor* into) {
  const char* op = into ? "pow_" : "pow";
  const Tensor* et = exponent.tensor();
  return binary(
      op, base, exponent, into, base.requires_grad() || (et && et->requires_grad()),
      [&](const Tensor* target) {
        if (!et) return pow_scalar_impl(op, base, exponent.scalar(), target);
        return elementwise(op, ElementwiseKernel::pow, Promote::Default, {base, *et}, {},
                           target);
      },
      [&](Recorder& rec, const Tensor& out, const Tensor& base_value) {
        if (et)
          rec.record("PowBackward1", {out}, {base_value, *et}, pow_tensor_backward,
                     {if_needed_by(*et, out)});
        else
          rec.record("PowBackward0", {out}, {base_value},
                     [e = exponent.scalar()](const Grads& g, const Saved& s) {
                       return TensorList{pow_backward_self(g[0], s[0], e)};
                     });
      });
}

}  // namespace

// ── free functions ──────────────────────────────────────────────────────
Tensor add(const Tensor& a, const Tensor& b, Scalar alpha) {
  return add_forms(a, b, alpha, nullptr);
}
Tensor add(const Tensor& a, Scalar b, Scalar alpha) { return add_forms(a, b, alpha, nullptr); }
Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha) {
  return sub_forms(a, b, alpha, nullptr);
}
Tensor sub(const Tensor& a, Scalar b, Scalar alpha) { return sub_forms(a, b, alpha, nullptr); }
Tensor rsub(const Tensor& a, Scalar b) {
  check_not_bool_sub(a, b);
  Recorder rec("rsub", {&a});
  Tensor out = elementwise("sub", ElementwiseKernel::sub, Promote::Default, {b, a},
                           {.scalar = {1}});
  if (rec)
    rec.record("RsubBackward1", {out}, {}, [](const Grads& g, const Saved&) {
      return TensorList{-g[0]};
    });
  return out;
}
Tensor mul(const Tensor& a, const Tensor& b) { return mul_forms(a, b, nullptr); }
Tensor mul(const Tensor& a, Scalar b) { return mul_forms(a, b, nullptr); }
Tensor div(const Tensor& a, const Tensor& b, DivOptions o) {
  return div_forms(a, b, o.rounding_mode, nullptr);
}
Tensor div(const Tensor& a, Scalar b, DivOptions o) {
  return div_forms(a, b, o.rounding_mode, nullptr);
}
Tensor div(Scalar a, const Tensor& b, DivOptions o) {
  // a / b = a * b^-1 (PyTorch records it as a reciprocal times a scalar)
  if (!o.rounding_mode && b.requires_grad() && is_grad_enabled()) return b.reciprocal() * a;
  return div_impl("div", a, b, o.rounding_mode, nullptr);
}
// floor_divide has no derivative in PyTorch 1.13 (backward raises).
Tensor floor_divide(const Tensor& a, const Tensor& b) {
  Recorder rec("floor_divide", {&a, &b});
  Tensor out = div_impl("div", a, b, std::string("floor"), nullptr);
  if (rec) record_not_implemented(rec, out, "floor_divide");
  return out;
}
Tensor floor_divide(const Tensor& a, Scalar b) {
  Recorder rec("floor_divide", {&a});
  Tensor out = div_impl("div", a, b, std::string("floor"), nullptr);
  if (rec) record_not_implemented(rec, out, "floor_divide");
  return out;
}
// a - floor(a / b) * b: d/da = 1, d/db = -floor(a / b).
Tensor remainder(const Tensor& a, const Tensor& b) {
  Recorder rec("remainder", {&a, &b});
  Tensor out = elementwise("remainder", ElementwiseKernel::remainder, Promote::Default, {a, b});
  if (rec)
    rec.record("RemainderBackward1", {out}, {if_needed_by(b, a), if_needed_by(b, b)},
               [](const Grads& g, const Saved& s) {
                 return TensorList{g[0], s[0].defined() ? -g[0] * div(s[0], s[1], {"floor"})
                                                        : Tensor()};
               });
  return out;
}
Tensor remainder(const Tensor& a, Scalar b) {
  Recorder rec("remainder", {&a});
  Tensor out = elementwise("remainder", ElementwiseKernel::remainder, Promote::Default, {a, b});
  if (rec)
    rec.record("RemainderBackward0", {out}, {}, [](const Grads& g, const Saved&) {
      return TensorList{g[0]};
    });
  return out;
}
Tensor remainder(Scalar a, const Tensor& b) {
  Recorder rec("remainder", {&b});
  Tensor out = elementwise("remainder", ElementwiseKernel::remainder, Promote::Default, {a, b});
  if (rec) record_not_implemented(rec, out, "remainder");
  return out;
}
// a - trunc(a / b) * b: d/da = 1, d/db = -trunc(a / b).
Tensor fmod(const Tensor& a, const Tensor& b) {
  Recorder rec("fmod", {&a, &b});
  Tensor out = elementwise("fmod", ElementwiseKernel::fmod, Promote::Default, {a, b});
  if (rec)
    rec.record("FmodBackward1", {out}, {if_needed_by(b, a), if_needed_by(b, b)},
               [](const Grads& g, const Saved& s) {
                 return TensorList{g[0], s[0].defined() ? -g[0] * div(s[0], s[1], {"trunc"})
                                                        : Tensor()};
               });
  return out;
}
Tensor fmod(const Tensor& a, Scalar b) {
  Recorder rec("fmod", {&a});
  Tensor out = elementwise("fmod", ElementwiseKernel::fmod, Promote::Default, {a, b});
  if (rec)
    rec.record("FmodBackward0", {out}, {}, [](const Grads& g, const Saved&) {
      return TensorList{g[0]};
    });
  return out;
}
Tensor pow(const Tensor& base, const Tensor& exponent) {
  return pow_forms(base, exponent, nullptr);
}
Tensor pow(const Tensor& base, Scalar exponent) { return pow_forms(base, exponent, nullptr); }
Tensor pow(Scalar base, const Tensor& exponent) {
  Recorder rec("pow", {&exponent});
  // PyTorch allocates this output row-major whatever the exponent's layout.
  Tensor out =
      empty(exponent.sizes(), {.dtype = result_type(base, exponent), .device = exponent.device()});
  out = elementwise("pow", ElementwiseKernel::pow, Promote::Default, {base, exponent}, {}, &out);
  if (rec)
    rec.record("PowBackward2", {out}, {exponent}, [base](const Grads& g, const Saved& s) {
      const Tensor a = full({}, base, {.dtype = s[1].dtype()});
      return TensorList{pow_backward_exponent(g[0], a, s[0], s[1])};
    }, {out});
  return out;
}
Tensor atan2(const Tensor& a, const Tensor& b) {
  Recorder rec("atan2", {&a, &b});
  Tensor out = elementwise("atan2", ElementwiseKernel::atan2, Promote::IntToFloat, {a, b});
  if (rec)
    rec.record("Atan2Backward0", {out}, {a, b}, [](const Grads& g, const Saved& s) {
      const Tensor recip = (s[0] * s[0] + s[1] * s[1]).reciprocal();
      return TensorList{g[0] * s[1] * recip, g[0] * -s[0] * recip};
    });
  return out;
}
Tensor maximum(const Tensor& a, const Tensor& b) {
  Recorder rec("maximum", {&a, &b});
  Tensor out = elementwise("maximum", ElementwiseKernel::maximum, Promote::Default, {a, b});
  if (rec)
    rec.record("MaximumBackward0", {out}, {a, b}, [](const Grads& g, const Saved& s) {
      return max_min_backward(g, s, true);
    });
  return out;
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  Recorder rec("minimum", {&a, &b});
  Tensor out = elementwise("minimum", ElementwiseKernel::minimum, Promote::Default, {a, b});
  if (rec)
    rec.record("MinimumBackward0", {out}, {a, b}, [](const Grads& g, const Saved& s) {
      return max_min_backward(g, s, false);
    });
  return out;
}
Tensor fmax(const Tensor& a, const Tensor& b) {
  Recorder rec("fmax", {&a, &b});
  Tensor out = elementwise("fmax", ElementwiseKernel::fmax, Promote::Default, {a, b});
  if (rec)
    rec.record("FmaxBackward0", {out}, {a, b}, [](const Grads& g, const Saved& s) {
      return fmax_fmin_backward(g, s, true);
    });
  return out;
}
Tensor fmin(const Tensor& a, const Tensor& b) {
  Recorder rec("fmin", {&a, &b});
  Tensor out = elementwise("fmin", ElementwiseKernel::fmin, Promote::Default, {a, b});
  if (rec)
    rec.record("FminBackward0", {out}, {a, b}, [](const Grads& g, const Saved& s) {
      return fmax_fmin_backward(g, s, false);
    });
  return out;
}
Tensor lerp(const Tensor& start, const Tensor& end, Scalar weight) {
  Recorder rec("lerp", {&start, &end});
  if (rec.autocast()) return lerp(rec.cast(0), rec.cast(1), weight);
  check_lerp_dtype(start, end, "end");
  Tensor out =
      elementwise("lerp", ElementwiseKernel::lerp_scalar, Promote::Default, {start, end},
                  {.scalar = {weight}});
  if (rec)
    rec.record("LerpBackward0", {out}, {}, [weight](const Grads& g, const Saved&) {
      return TensorList{g[0] * (1 - weight.to_double()), g[0] * weight};
    });
  return out;
}
Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight) {
  Recorder rec("lerp", {&start, &end, &weight});
  if (rec.autocast()) return lerp(rec.cast(0), rec.cast(1), rec.cast(2));
  check_lerp_dtype(start, end, "end");
  check_lerp_dtype(start, weight, "weight");
  Tensor out = elementwise("lerp", ElementwiseKernel::lerp, Promote::Default, {start, end, weight});
  if (rec)
    rec.record("LerpBackward1", {out},
               {if_needed_by(weight, start), if_needed_by(weight, end), weight},
               [](const Grads& g, const Saved& s) {
                 return TensorList{g[0] * (1 - s[2]), g[0] * s[2],
                                   s[0].defined() ? g[0] * (s[1] - s[0]) : Tensor()};
               });
  return out;
}
Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value) {
  Recorder rec("addcmul", {&self, &t1, &t2});
  Tensor out =
      elementwise("addcmul", ElementwiseKernel::addcmul, Promote::Default, {self, t1, t2},
                  {.scalar = {value}});
  if (rec)
    rec.record("AddcmulBackward0", {out}, {if_needed_by(t2, t1), if_needed_by(t1, t2)},
               addcmul_backward(value));
  return out;
}
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value) {
  check_addcdiv("addcdiv", t1, t2);
  Recorder rec("addcdiv", {&self, &t1, &t2});
  Tensor out =
      elementwise("addcdiv", ElementwiseKernel::addcdiv, Promote::Default, {self, t1, t2},
                  {.scalar = {value}});
  if (rec)
    rec.record("AddcdivBackward0", {out}, {if_needed_by(t2, t1), t2}, addcdiv_backward(value));
  return out;
}
Tensor hypot(const Tensor& a, const Tensor& b) {
  Recorder rec("hypot", {&a, &b});
  Tensor out = elementwise("hypot", ElementwiseKernel::hypot, Promote::Default, {a, b});
  if (rec)
    rec.record("HypotBackward0", {out}, {a, b}, [](const Grads& g, const Saved& s) {
      return TensorList{g[0] * s[0] / s[2], g[0] * s[1] / s[2]};
    }, {out});
  return out;
}
// x * log(y), 0 where x == 0: d/dx = log(y) (PyTorch's xlogy(grad, y), 0 where x == 0 and
// y <= 0), d/dy = x / y.
Tensor xlogy(const Tensor& a, const Tensor& b) {
  Recorder rec("xlogy", {&a, &b});
  Tensor out = elementwise("xlogy", ElementwiseKernel::xlogy, Promote::IntToFloat, {a, b});
  if (rec)
    rec.record("XlogyBackward0", {out}, {a, b}, [](const Grads& g, const Saved& s) {
      return TensorList{xlogy(g[0], s[1]).masked_fill(logical_and(s[0] == 0, s[1] <= 0), 0),
                        g[0] * s[0] / s[1]};
    });
  return out;
}

// ── methods ─────────────────────────────────────────────────────────────
Tensor Tensor::add(const Tensor& o, Scalar alpha) const { return ember::add(*this, o, alpha); }
Tensor Tensor::add(Scalar o, Scalar alpha) const { return ember::add(*this, o, alpha); }
Tensor& Tensor::add_(const Tensor& o, Scalar alpha) const {
  add_forms(*this, o, alpha, &mut());
  return mut();
}
Tensor& Tensor::add_(Scalar o, Scalar alpha) const {
  add_forms(*this, o, alpha, &mut());
  return mut();
}
Tensor Tensor::sub(const Tensor& o, Scalar alpha) const { return ember::sub(*this, o, alpha); }
Tensor Tensor::sub(Scalar o, Scalar alpha) const { return ember::sub(*this, o, alpha); }
Tensor& Tensor::sub_(const Tensor& o, Scalar alpha) const {
  sub_forms(*this, o, alpha, &mut());
  return mut();
}
Tensor& Tensor::sub_(Scalar o, Scalar alpha) const {
  sub_forms(*this, o, alpha, &mut());
  return mut();
}
Tensor Tensor::mul(const Tensor& o) const { return ember::mul(*this, o); }
Tensor Tensor::mul(Scalar o) const { return ember::mul(*this, o); }
Tensor& Tensor::mul_(const Tensor& o) const {
  mul_forms(*this, o, &mut());
  return mut();
}
Tensor& Tensor::mul_(Scalar o) const {
  mul_forms(*this, o, &mut());
  return mut();
}
Tensor Tensor::div(const Tensor& o, std::optional<std::string> m) const {
  return ember::div(*this, o, {m});
}
Tensor Tensor::div(Scalar o, std::optional<std::string> m) const {
  return ember::div(*this, o, {m});
}
Tensor& Tensor::div_(const Tensor& o, std::optional<std::string> m) const {
  div_forms(*this, o, m, &mut());
  return mut();
}
Tensor& Tensor::div_(Scalar o, std::optional<std::string> m) const {
  div_forms(*this, o, m, &mut());
  return mut();
}
Tensor Tensor::floor_divide(const Tensor& o) const { return ember::floor_divide(*this, o); }
Tensor Tensor::floor_divide(Scalar o) const { return ember::floor_divide(*this, o); }
Tensor Tensor::remainder(const Tensor& o) const { return ember::remainder(*this, o); }
Tensor Tensor::remainder(Scalar o) const { return ember::remainder(*this, o); }
Tensor Tensor::fmod(const Tensor& o) const { return ember::fmod(*this, o); }
Tensor Tensor::fmod(Scalar o) const { return ember::fmod(*this, o); }
Tensor Tensor::pow(const Tensor& e) const { return ember::pow(*this, e); }
Tensor Tensor::pow(Scalar e) const { return ember::pow(*this, e); }
Tensor& Tensor::pow_(const Tensor& e) const {
  pow_forms(*this, e, &mut());
  return mut();
}
Tensor& Tensor::pow_(Scalar e) const {
  pow_forms(*this, e, &mut());
  return mut();
}
Tensor Tensor::atan2(const Tensor& o) const { return ember::atan2(*this, o); }
Tensor Tensor::maximum(const Tensor& o) const { return ember::maximum(*this, o); }
Tensor Tensor::minimum(const Tensor& o) const { return ember::minimum(*this, o); }
Tensor Tensor::fmax(const Tensor& o) const { return ember::fmax(*this, o); }
Tensor Tensor::fmin(const Tensor& o) const { return ember::fmin(*this, o); }
Tensor Tensor::lerp(const Tensor& end, Scalar w) const { return ember::lerp(*this, end, w); }
Tensor Tensor::lerp(const Tensor& end, const Tensor& w) const {
  return ember::lerp(*this, end, w);
}
Tensor Tensor::addcmul(const Tensor& a, const Tensor& b, Scalar v) const {
  return ember::addcmul(*this, a, b, v);
}
Tensor& Tensor::addcmul_(const Tensor& a, const Tensor& b, Scalar v) const {
  Recorder rec(Recorder::InPlace{}, "addcmul_", *this, {&a, &b});
  elementwise("addcmul_", ElementwiseKernel::addcmul, Promote::Default, {*this, a, b},
              {.scalar = {v}}, &mut());
  if (rec)
    rec.record("AddcmulBackward0", {*this}, {if_needed_by(b, a), if_needed_by(a, b)},
               addcmul_backward(v));
  return mut();
}
Tensor Tensor::addcdiv(const Tensor& a, const Tensor& b, Scalar v) const {
  return ember::addcdiv(*this, a, b, v);
}
Tensor& Tensor::addcdiv_(const Tensor& a, const Tensor& b, Scalar v) const {
  check_addcdiv("addcdiv_", a, b);
  Recorder rec(Recorder::InPlace{}, "addcdiv_", *this, {&a, &b});
  elementwise("addcdiv_", ElementwiseKernel::addcdiv, Promote::Default, {*this, a, b},
              {.scalar = {v}}, &mut());
  if (rec) rec.record("AddcdivBackward0", {*this}, {if_needed_by(b, a), b}, addcdiv_backward(v));
  return mut();
}

}  // namespace ember
