// Elementwise math on tensors from Python: unary functions and their in-place forms, binary
// arithmetic and comparisons with a tensor or a number on either side, clamp, where, lerp,
// addcmul/addcdiv, masked_fill.
#include "common.h"

namespace ember::python {
namespace {

using UnaryFn = Tensor (*)(const Tensor&);

// Unary functions that C++ has as free functions. Each gets ember.NAME, Tensor.NAME and
// Tensor.NAME_ (in place: native where C++ has it, else the result copied back).
struct Unary {
  const char* name;
  UnaryFn fn;
};
constexpr Unary kUnary[] = {
    {"neg", ember::neg},
    {"abs", ember::abs},
    {"sign", ember::sign},
    {"sqrt", ember::sqrt},
    {"rsqrt", ember::rsqrt},
    {"square", ember::square},
    {"exp", ember::exp},
    {"exp2", ember::exp2},
    {"expm1", ember::expm1},
    {"log", ember::log},
    {"log2", ember::log2},
    {"log10", ember::log10},
    {"log1p", ember::log1p},
    {"sin", ember::sin},
    {"cos", ember::cos},
    {"tan", ember::tan},
    {"asin", ember::asin},
    {"acos", ember::acos},
    {"atan", ember::atan},
    {"sinh", ember::sinh},
    {"cosh", ember::cosh},
    {"tanh", ember::tanh},
    {"sigmoid", ember::sigmoid},
    {"relu", ember::relu},
    {"erf", ember::erf},
    {"erfc", ember::erfc},
    {"floor", ember::floor},
    {"ceil", ember::ceil},
    {"trunc", ember::trunc},
    {"frac", ember::frac},
    {"reciprocal", ember::reciprocal},
    {"logical_not", ember::logical_not},
    {"bitwise_not", ember::bitwise_not},
    {"isnan", ember::isnan},
    {"isinf", ember::isinf},
    {"isfinite", ember::isfinite},
    {"selu", ember::selu},
    {"relu6", ember::relu6},
    {"silu", ember::silu},
    {"mish", ember::mish},
    {"hardsigmoid", ember::hardsigmoid},
    {"hardswish", ember::hardswish},
};
// PyTorch's other names for the same functions.
constexpr std::pair<const char*, const char*> kUnaryAliases[] = {
    {"negative", "neg"}, {"absolute", "abs"},  {"arcsin", "asin"}, {"arccos", "acos"},
    {"arctan", "atan"},  {"arcsinh", "asinh"}, {"fix", "trunc"},   {"special_expit", "sigmoid"},
};

// A binary op's tensor-tensor and tensor-scalar forms (the scalar form may be null: then the
// number becomes a 0-d tensor of PyTorch's result dtype).
struct Binary {
  const char* name;
  Tensor (*tt)(const Tensor&, const Tensor&);
  Tensor (*ts)(const Tensor&, Scalar);
  bool wrap_when_recorded = false;  // PyTorch's node names (see tensor.cpp's binary())
};
Tensor mul2(const Tensor& a, const Tensor& b) { return ember::mul(a, b); }
Tensor mul2s(const Tensor& a, Scalar b) { return ember::mul(a, b); }
Tensor fdiv(const Tensor& a, const Tensor& b) { return ember::floor_divide(a, b); }
Tensor fdivs(const Tensor& a, Scalar b) { return ember::floor_divide(a, b); }
Tensor rem(const Tensor& a, const Tensor& b) { return ember::remainder(a, b); }
Tensor rems(const Tensor& a, Scalar b) { return ember::remainder(a, b); }
Tensor fmod2(const Tensor& a, const Tensor& b) { return ember::fmod(a, b); }
Tensor fmod2s(const Tensor& a, Scalar b) { return ember::fmod(a, b); }
Tensor pow2(const Tensor& a, const Tensor& b) { return ember::pow(a, b); }
Tensor pow2s(const Tensor& a, Scalar b) { return ember::pow(a, b); }
Tensor eq2(const Tensor& a, const Tensor& b) { return a.eq(b); }
Tensor eq2s(const Tensor& a, Scalar b) { return a.eq(b); }
Tensor ne2(const Tensor& a, const Tensor& b) { return a.ne(b); }
Tensor ne2s(const Tensor& a, Scalar b) { return a.ne(b); }
Tensor lt2(const Tensor& a, const Tensor& b) { return a.lt(b); }
Tensor lt2s(const Tensor& a, Scalar b) { return a.lt(b); }
Tensor le2(const Tensor& a, const Tensor& b) { return a.le(b); }
Tensor le2s(const Tensor& a, Scalar b) { return a.le(b); }
Tensor gt2(const Tensor& a, const Tensor& b) { return a.gt(b); }
Tensor gt2s(const Tensor& a, Scalar b) { return a.gt(b); }
Tensor ge2(const Tensor& a, const Tensor& b) { return a.ge(b); }
Tensor ge2s(const Tensor& a, Scalar b) { return a.ge(b); }
Tensor band(const Tensor& a, const Tensor& b) { return a & b; }
Tensor bands(const Tensor& a, Scalar b) { return a & b; }
Tensor bor(const Tensor& a, const Tensor& b) { return a | b; }
Tensor bors(const Tensor& a, Scalar b) { return a | b; }
Tensor bxor(const Tensor& a, const Tensor& b) { return a ^ b; }
Tensor bxors(const Tensor& a, Scalar b) { return a ^ b; }

constexpr Binary kBinary[] = {
    {"mul", mul2, mul2s, true},
    {"multiply", mul2, mul2s, true},
    {"floor_divide", fdiv, fdivs},
    {"remainder", rem, rems},
    {"fmod", fmod2, fmod2s},
    {"pow", pow2, pow2s},
    {"atan2", ember::atan2, nullptr},
    {"arctan2", ember::atan2, nullptr},
    {"maximum", ember::maximum, nullptr},
    {"minimum", ember::minimum, nullptr},
    {"fmax", ember::fmax, nullptr},
    {"fmin", ember::fmin, nullptr},
    {"hypot", ember::hypot, nullptr},
    {"xlogy", ember::xlogy, nullptr},
    {"eq", eq2, eq2s},
    {"ne", ne2, ne2s},
    {"not_equal", ne2, ne2s},
    {"lt", lt2, lt2s},
    {"less", lt2, lt2s},
    {"le", le2, le2s},
    {"less_equal", le2, le2s},
    {"gt", gt2, gt2s},
    {"greater", gt2, gt2s},
    {"ge", ge2, ge2s},
    {"greater_equal", ge2, ge2s},
    {"logical_and", ember::logical_and, nullptr},
    {"logical_or", ember::logical_or, nullptr},
    {"logical_xor", ember::logical_xor, nullptr},
    {"bitwise_and", band, bands},
    {"bitwise_or", bor, bors},
    {"bitwise_xor", bxor, bxors},
};

// Applies a binary op to (input, other) where either may be a number (torch.pow(2, t)).
Tensor apply_binary(const Binary& op, py::handle input, py::handle other) {
  if (!is_tensor(input)) {
    Tensor b = to_tensor(other, op.name, "other");
    return op.tt(scalar_operand(to_scalar(input, op.name, "input"), b), b);
  }
  Tensor a = unwrap(input);
  if (is_tensor(other)) {
    Tensor b = unwrap(other);
    return without_gil(work_sum(a.numel(), b.numel()), [&] { return op.tt(a, b); });
  }
  Scalar s = to_scalar(other, op.name, "other");
  if (!op.ts || (op.wrap_when_recorded && recorded(a))) {
    Tensor b = scalar_operand(s, a);
    return without_gil(a.numel(), [&] { return op.tt(a, b); });
  }
  return without_gil(a.numel(), [&] { return op.ts(a, s); });
}

// add/sub have alpha: a + alpha * b.
Tensor add_sub(bool subtract, const Tensor& a, py::handle other, py::handle alpha_obj) {
  const char* op = subtract ? "sub" : "add";
  Scalar alpha = to_scalar(alpha_obj, op, "alpha");
  if (is_tensor(other)) {
    Tensor b = unwrap(other);
    return without_gil(
        a.numel(), [&] { return subtract ? ember::sub(a, b, alpha) : ember::add(a, b, alpha); });
  }
  Scalar s = to_scalar(other, op, "other");
  if (recorded(a)) {
    Tensor b = scalar_operand(s, a);
    return subtract ? ember::sub(a, b, alpha) : ember::add(a, b, alpha);
  }
  return without_gil(a.numel(),
                     [&] { return subtract ? ember::sub(a, s, alpha) : ember::add(a, s, alpha); });
}

std::optional<std::string> rounding(py::handle h) {
  if (h.is_none()) return std::nullopt;
  return h.cast<std::string>();
}

// clamp's bounds: numbers, tensors or None.
Tensor clamp_any(const Tensor& t, py::handle min, py::handle max) {
  if (min.is_none() && max.is_none())
    throw std::runtime_error("torch.clamp: At least one of 'min' or 'max' must not be None");
  if (is_tensor(min) || is_tensor(max)) {
    Tensor out = t;
    if (!min.is_none())
      out = ember::maximum(
          out, is_tensor(min) ? unwrap(min) : scalar_operand(to_scalar(min, "clamp", "min"), t));
    if (!max.is_none())
      out = ember::minimum(
          out, is_tensor(max) ? unwrap(max) : scalar_operand(to_scalar(max, "clamp", "max"), t));
    return out;
  }
  std::optional<Scalar> lo, hi;
  if (!min.is_none()) lo = to_scalar(min, "clamp", "min");
  if (!max.is_none()) hi = to_scalar(max, "clamp", "max");
  return without_gil(t.numel(), [&] { return ember::clamp(t, lo, hi); });
}

Tensor where3(const Tensor& cond, py::handle a, py::handle b) {
  bool ta = is_tensor(a), tb = is_tensor(b);
  if (ta && tb) return ember::where(cond, unwrap(a), unwrap(b));
  if (ta) return ember::where(cond, unwrap(a), to_scalar(b, "where", "other"));
  if (tb) return ember::where(cond, to_scalar(a, "where", "input"), unwrap(b));
  return ember::where(cond, to_scalar(a, "where", "input"), to_scalar(b, "where", "other"));
}

}  // namespace

void bind_math_methods(Binder& b) {
  for (const Unary& u : kUnary) {
    UnaryFn fn = u.fn;
    b.both(u.name, [fn](const Tensor& t) {
      LongOpGilRelease gil(t.numel());
      return fn(t);
    });
    std::string inplace = std::string(u.name) + "_";
    b.method(inplace.c_str(), [fn](const Tensor& t) {
      LongOpGilRelease gil(t.numel());
      return t.copy_(fn(t));
    });
  }
  // Native in-place forms (no temporary).
  b.method("neg_", [](const Tensor& t) { return t.neg_(); });
  b.method("abs_", [](const Tensor& t) { return t.abs_(); });
  b.method("sqrt_", [](const Tensor& t) { return t.sqrt_(); });
  b.method("exp_", [](const Tensor& t) { return t.exp_(); });
  b.method("log_", [](const Tensor& t) { return t.log_(); });
  b.method("tanh_", [](const Tensor& t) { return t.tanh_(); });
  b.method("sigmoid_", [](const Tensor& t) { return t.sigmoid_(); });
  b.method("relu_", [](const Tensor& t) { return t.relu_(); });
  b.method("reciprocal_", [](const Tensor& t) { return t.reciprocal_(); });
  for (auto [alias, target] : kUnaryAliases)
    if (py::hasattr(b.cls, target)) b.alias(alias, target);

  b.both(
      "round", [](const Tensor& t, int64_t decimals) { return ember::round(t, decimals); },
      py::kw_only(), py::arg("decimals") = 0);
  b.both(
      "logit", [](const Tensor& t, std::optional<double> eps) { return ember::logit(t, eps); },
      py::arg("eps") = py::none());
  b.both(
      "nan_to_num",
      [](const Tensor& t, std::optional<double> nan, std::optional<double> posinf,
         std::optional<double> neginf) {
        return ember::nan_to_num(t, nan.value_or(0.0), posinf, neginf);
      },
      py::arg("nan") = 0.0, py::arg("posinf") = py::none(), py::arg("neginf") = py::none());
  b.both(
      "leaky_relu", [](const Tensor& t, double s) { return ember::leaky_relu(t, s); },
      py::arg("negative_slope") = 0.01);
  b.both(
      "gelu",
      [](const Tensor& t, std::string approximate) {
        return ember::gelu(t, {.approximate = approximate});
      },
      py::kw_only(), py::arg("approximate") = "none");
  b.both(
      "softplus",
      [](const Tensor& t, double beta, double threshold) {
        return ember::softplus(t, beta, threshold);
      },
      py::arg("beta") = 1.0, py::arg("threshold") = 20.0);
  b.both(
      "hardshrink", [](const Tensor& t, double lambd) { return ember::hardshrink(t, lambd); },
      py::arg("lambd") = 0.5);
  b.both(
      "hardtanh", [](const Tensor& t, double lo, double hi) { return ember::hardtanh(t, lo, hi); },
      py::arg("min_val") = -1.0, py::arg("max_val") = 1.0);
  b.both(
      "elu", [](const Tensor& t, double alpha) { return ember::elu(t, alpha); },
      py::arg("alpha") = 1.0);

  for (const Binary& op : kBinary) {
    const Binary* p = &op;
    // The free function accepts a number as either operand; the method has the tensor first.
    b.function(
        op.name, [p](py::handle input, py::handle other) { return apply_binary(*p, input, other); },
        py::arg("input"), py::arg("other"));
    b.method(
        op.name, [p](py::handle self, py::handle other) { return apply_binary(*p, self, other); },
        py::arg("other"));
    std::string inplace = std::string(op.name) + "_";
    b.method(
        inplace.c_str(),
        [p](py::handle self, py::handle other) {
          Tensor t = unwrap(self);
          return t.copy_(apply_binary(*p, self, other));
        },
        py::arg("other"));
  }
  b.method(
      "mul_",
      [](const Tensor& t, py::handle other) -> Tensor {
        if (is_tensor(other)) {
          Tensor o = unwrap(other);
          return without_gil(t.numel(), [&] { return t.mul_(o); });
        }
        Scalar s = to_scalar(other, "mul_", "other");
        return without_gil(t.numel(), [&] { return t.mul_(s); });
      },
      py::arg("other"));
  b.method(
      "pow_",
      [](const Tensor& t, py::handle e) -> Tensor {
        return is_tensor(e) ? t.pow_(unwrap(e)) : t.pow_(to_scalar(e, "pow_", "exponent"));
      },
      py::arg("exponent"));

  for (bool subtract : {false, true}) {
    const char* name = subtract ? "sub" : "add";
    b.function(
        name,
        [subtract](py::handle input, py::handle other, py::handle alpha) {
          if (!is_tensor(input)) {
            Tensor o = to_tensor(other, subtract ? "sub" : "add", "other");
            return add_sub(subtract, scalar_operand(to_scalar(input, "add", "input"), o), other,
                           alpha);
          }
          return add_sub(subtract, unwrap(input), other, alpha);
        },
        py::arg("input"), py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
    b.method(
        name,
        [subtract](const Tensor& t, py::handle other, py::handle alpha) {
          return add_sub(subtract, t, other, alpha);
        },
        py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
    b.method(
        subtract ? "sub_" : "add_",
        [subtract](const Tensor& t, py::handle other, py::handle alpha_obj) {
          Scalar alpha = to_scalar(alpha_obj, "add_", "alpha");
          if (is_tensor(other)) {
            Tensor o = unwrap(other);
            return without_gil(t.numel(),
                               [&] { return subtract ? t.sub_(o, alpha) : t.add_(o, alpha); });
          }
          Scalar s = to_scalar(other, "add_", "other");
          if (recorded(t)) {
            Tensor b = scalar_operand(s, t);
            return subtract ? t.sub_(b, alpha) : t.add_(b, alpha);
          }
          return without_gil(t.numel(),
                             [&] { return subtract ? t.sub_(s, alpha) : t.add_(s, alpha); });
        },
        py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
  }
  b.alias("subtract", "sub");
  b.function(
      "rsub",
      [](const Tensor& t, py::handle other, py::handle alpha) {
        Tensor o =
            is_tensor(other) ? unwrap(other) : scalar_operand(to_scalar(other, "rsub", "other"), t);
        return ember::sub(o, t, to_scalar(alpha, "rsub", "alpha"));
      },
      py::arg("input"), py::arg("other"), py::kw_only(), py::arg("alpha") = 1);

  auto div_any = [](py::handle input, py::handle other, py::handle mode) -> Tensor {
    DivOptions o{.rounding_mode = rounding(mode)};
    if (!is_tensor(input)) {
      Tensor d = to_tensor(other, "div", "other");
      return ember::div(to_scalar(input, "div", "input"), d, o);
    }
    Tensor a = unwrap(input);
    if (is_tensor(other)) {
      Tensor d = unwrap(other);
      return without_gil(a.numel(), [&] { return ember::div(a, d, o); });
    }
    Scalar s = to_scalar(other, "div", "other");
    if (recorded(a)) return ember::div(a, scalar_operand(s, a), o);
    return without_gil(a.numel(), [&] { return ember::div(a, s, o); });
  };
  for (const char* name : {"div", "divide", "true_divide"}) {
    b.function(name, div_any, py::arg("input"), py::arg("other"), py::kw_only(),
               py::arg("rounding_mode") = py::none());
    b.method(name, div_any, py::arg("other"), py::kw_only(), py::arg("rounding_mode") = py::none());
  }
  auto div_ = [](const Tensor& t, py::handle other, py::handle mode) -> Tensor {
    std::optional<std::string> r = rounding(mode);
    if (is_tensor(other)) {
      Tensor d = unwrap(other);
      return without_gil(t.numel(), [&] { return t.div_(d, r); });
    }
    Scalar s = to_scalar(other, "div_", "other");
    return without_gil(t.numel(), [&] { return t.div_(s, r); });
  };
  b.method("div_", div_, py::arg("other"), py::kw_only(), py::arg("rounding_mode") = py::none());
  b.method("divide_", div_, py::arg("other"), py::kw_only(), py::arg("rounding_mode") = py::none());
  b.method("true_divide_", div_, py::arg("other"), py::kw_only(),
           py::arg("rounding_mode") = py::none());

  b.both("clamp", clamp_any, py::arg("min") = py::none(), py::arg("max") = py::none());
  b.both("clip", clamp_any, py::arg("min") = py::none(), py::arg("max") = py::none());
  for (const char* name : {"clamp_", "clip_"})
    b.method(
        name,
        [](const Tensor& t, py::handle min, py::handle max) {
          return t.copy_(clamp_any(t, min, max));
        },
        py::arg("min") = py::none(), py::arg("max") = py::none());
  b.both(
      "clamp_min", [](const Tensor& t, py::handle min) { return clamp_any(t, min, py::none()); },
      py::arg("min"));
  b.both(
      "clamp_max", [](const Tensor& t, py::handle max) { return clamp_any(t, py::none(), max); },
      py::arg("max"));

  b.function(
      "where",
      [](const Tensor& cond, py::handle a, py::handle bb) -> py::object {
        if (a.is_none() && bb.is_none()) return py::tuple(py::cast(nonzero_tuple(cond)));
        return wrap(where3(cond, a, bb));
      },
      py::arg("condition"), py::arg("input") = py::none(), py::arg("other") = py::none());
  b.method(
      "where",
      [](const Tensor& self, const Tensor& cond, py::handle other) {
        return where3(cond, wrap(self), other);
      },
      py::arg("condition"), py::arg("other"));
  b.both(
      "masked_fill",
      [](const Tensor& t, const Tensor& mask, py::handle v) {
        return is_tensor(v) ? t.masked_fill(mask, unwrap(v))
                            : t.masked_fill(mask, to_scalar(v, "masked_fill", "value"));
      },
      py::arg("mask"), py::arg("value"));
  b.method(
      "masked_fill_",
      [](const Tensor& t, const Tensor& mask, py::handle v) {
        return is_tensor(v) ? t.masked_fill_(mask, unwrap(v))
                            : t.masked_fill_(mask, to_scalar(v, "masked_fill_", "value"));
      },
      py::arg("mask"), py::arg("value"));
  b.both(
      "lerp",
      [](const Tensor& s, const Tensor& e, py::handle w) {
        return is_tensor(w) ? ember::lerp(s, e, unwrap(w))
                            : ember::lerp(s, e, to_scalar(w, "lerp", "weight"));
      },
      py::arg("end"), py::arg("weight"));
  b.both(
      "addcmul",
      [](const Tensor& s, const Tensor& t1, const Tensor& t2, py::handle v) {
        return ember::addcmul(s, t1, t2, to_scalar(v, "addcmul", "value"));
      },
      py::arg("tensor1"), py::arg("tensor2"), py::kw_only(), py::arg("value") = 1);
  b.both(
      "addcdiv",
      [](const Tensor& s, const Tensor& t1, const Tensor& t2, py::handle v) {
        return ember::addcdiv(s, t1, t2, to_scalar(v, "addcdiv", "value"));
      },
      py::arg("tensor1"), py::arg("tensor2"), py::kw_only(), py::arg("value") = 1);
  b.method(
      "addcmul_",
      [](const Tensor& s, const Tensor& t1, const Tensor& t2, py::handle v) {
        return s.addcmul_(t1, t2, to_scalar(v, "addcmul_", "value"));
      },
      py::arg("tensor1"), py::arg("tensor2"), py::kw_only(), py::arg("value") = 1);
  b.method(
      "addcdiv_",
      [](const Tensor& s, const Tensor& t1, const Tensor& t2, py::handle v) {
        return s.addcdiv_(t1, t2, to_scalar(v, "addcdiv_", "value"));
      },
      py::arg("tensor1"), py::arg("tensor2"), py::kw_only(), py::arg("value") = 1);
  b.both(
      "isclose",
      [](const Tensor& a, const Tensor& o, double rtol, double atol, bool equal_nan) {
        return ember::isclose(a, o, rtol, atol, equal_nan);
      },
      py::arg("other"), py::arg("rtol") = 1e-5, py::arg("atol") = 1e-8,
      py::arg("equal_nan") = false);
  b.both(
      "allclose",
      [](const Tensor& a, const Tensor& o, double rtol, double atol, bool equal_nan) {
        return ember::allclose(a, o, rtol, atol, equal_nan);
      },
      py::arg("other"), py::arg("rtol") = 1e-5, py::arg("atol") = 1e-8,
      py::arg("equal_nan") = false);
  b.both(
      "equal", [](const Tensor& a, const Tensor& o) { return a.equal(o); }, py::arg("other"));
}

}  // namespace ember::python
