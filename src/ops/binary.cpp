// Binary arithmetic: add, sub, mul, div (true/floor/trunc), floor_divide, remainder, fmod, pow,
// atan2, maximum/minimum, fmax/fmin, lerp, addcmul/addcdiv, hypot, xlogy — with their in-place
// forms and the Tensor methods. Each is a one-line functor run by the elementwise front end.
#include <cmath>

#include "autograd/function.h"
#include "ember/creation.h"
#include "ember/math.h"
#include "ops/elementwise.h"

namespace ember {
namespace {

using autograd::Grads;
using autograd::Recorder;
using autograd::Saved;
using autograd::TensorList;
using cpu::Vec;

constexpr auto kNumericSet = DtypeSet::Numeric;
constexpr auto kAllSet = DtypeSet::All;
constexpr auto kFloatingSet = DtypeSet::Floating;

template <class T>
constexpr bool is_int = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// Integer division and modulo raise on a zero divisor instead of trapping.
template <class T>
void check_divisor(T b, const char* op) {
  if constexpr (std::is_integral_v<T>) EMBER_CHECK(b != 0, op, "ZeroDivisionError");
}

// PyTorch's alpha_check: a bool alpha needs a bool result, a floating one a floating result.
template <class T>
void check_alpha(const char* op, Scalar alpha) {
  EMBER_CHECK((!alpha.is_bool() || std::is_same_v<T, bool>), op,
              "Boolean alpha only supported for Boolean results.");
  EMBER_CHECK(std::is_floating_point_v<T> || !alpha.is_floating_point(), op,
              "For integral input tensors, argument alpha must not be a floating point number.");
}

auto add_fn(const char* op, Scalar alpha) {
  return [op, alpha]<class T>() {
    check_alpha<T>(op, alpha);
    const T s = alpha.to<T>();
    if constexpr (std::is_same_v<T, bool>) {
      return [s](auto x, auto y) { return bool(x || (s && y)); };
    } else {
      return [s](auto x, auto y) { return x + s * y; };
    }
  };
}

auto sub_fn(const char* op, Scalar alpha) {
  return [op, alpha]<class T>() {
    check_alpha<T>(op, alpha);
    const T s = alpha.to<T>();
    return [s](auto x, auto y) { return x - s * y; };
  };
}

inline constexpr auto mul_fn = []<class T>() {
  if constexpr (std::is_same_v<T, bool>) {
    return [](auto x, auto y) { return bool(x && y); };
  } else {
    return [](auto x, auto y) { return x * y; };
  }
};

inline constexpr auto true_div_fn = []<class T>() { return [](auto x, auto y) { return x / y; }; };

// Python's floor division: for floats, PyTorch's div_floor (exact quotient adjusted toward
// -inf, and the sign of zero kept); for integers, C division corrected for mixed signs.
template <class T>
T floor_div(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (b == 0) return a / b;
    const T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != 0 && (b < 0) != (mod < 0)) div -= 1;
    if (div == 0) return std::copysign(T(0), a / b);
    T floordiv = std::floor(div);
    if (div - floordiv > T(0.5)) floordiv += 1;
    return floordiv;
  } else {
    check_divisor(b, "floor_divide");
    const T q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? T(q - 1) : q;
  }
}

inline constexpr auto floor_div_fn = []<class T>() {
  return [](T x, T y) { return floor_div(x, y); };
};

inline constexpr auto trunc_div_fn = []<class T>() {
  return [](T x, T y) -> T {
    if constexpr (std::is_floating_point_v<T>) {
      return std::trunc(x / y);
    } else {
      check_divisor(y, "div");
      return T(x / y);
    }
  };
};

inline constexpr auto remainder_fn = []<class T>() {
  return [](T a, T b) -> T {
    if constexpr (std::is_floating_point_v<T>) {
      T mod = std::fmod(a, b);
      if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
      return mod;
    } else {
      check_divisor(b, "remainder");
      T mod = T(a % b);
      if (mod != 0 && ((b < 0) != (mod < 0))) mod = T(mod + b);
      return mod;
    }
  };
};

inline constexpr auto fmod_fn = []<class T>() {
  return [](T a, T b) -> T {
    if constexpr (std::is_floating_point_v<T>) {
      return std::fmod(a, b);
    } else {
      check_divisor(b, "fmod");
      return T(a % b);
    }
  };
};

template <class T>
T int_pow(T base, T exp) {
  if (exp < 0) {  // only 1 and -1 have non-zero integer reciprocals
    if (base == 1) return 1;
    if (base == -1) return (exp & 1) ? T(-1) : T(1);
    return 0;
  }
  T result = 1;
  while (exp) {
    if (exp & 1) result = T(result * base);
    base = T(base * base);
    exp >>= 1;
  }
  return result;
}

inline constexpr auto pow_fn = []<class T>() {
  if constexpr (std::is_floating_point_v<T>) {
    return [](auto x, auto y) { return cpu::pow(x, y); };
  } else {
    return [](T x, T y) -> T {
      if constexpr (std::is_same_v<T, bool>) return x || !y;
      else return int_pow(x, y);
    };
  }
};

inline constexpr auto maximum_fn = []<class T>() {
  return [](auto x, auto y) { return cpu::vmax(x, y); };
};
inline constexpr auto minimum_fn = []<class T>() {
  return [](auto x, auto y) { return cpu::vmin(x, y); };
};

inline constexpr auto fmax_fn = []<class T>() {
  return [](T x, T y) -> T {
    if constexpr (std::is_floating_point_v<T>) return std::fmax(x, y);
    else return x > y ? x : y;
  };
};
inline constexpr auto fmin_fn = []<class T>() {
  return [](T x, T y) -> T {
    if constexpr (std::is_floating_point_v<T>) return std::fmin(x, y);
    else return x < y ? x : y;
  };
};

// PyTorch 1.13's lerp: from the end nearer a weight in [0, 1], so lerp(a, b, 1) == b exactly;
// fused multiply-adds, as its kernel is compiled (and as later versions write it).
template <class T>
T lerp_value(T a, T b, T w) {
  return w < T(0.5) ? std::fma(w, b - a, a) : std::fma(a - b, T(1) - w, b);
}
inline constexpr auto lerp_fn = []<class T>() {
  return [](T a, T b, T w) { return lerp_value(a, b, w); };
};
// A scalar weight is an argument, not an operand: it stays in the compute type (float for half).
auto lerp_scalar_fn(Scalar weight) {
  return [weight]<class T>() {
    return [w = weight.to<T>()](T a, T b) { return lerp_value(a, b, w); };
  };
}

// lerp does not promote: end (and a tensor weight) must have start's dtype.
void check_lerp_dtype(const Tensor& start, const Tensor& other, const char* name) {
  EMBER_CHECK(start.dtype() == other.dtype(), "lerp", "expected dtype ", start.dtype(), " for `",
              name, "` but got dtype ", other.dtype());
}

auto addcmul_fn(Scalar value) {
  return [value]<class T>() {
    const T v = value.to<T>();
    return [v](auto s, auto a, auto b) { return s + v * a * b; };
  };
}

auto addcdiv_fn(Scalar value) {
  return [value]<class T>() {
    const T v = value.to<T>();
    return [v](auto s, auto a, auto b) { return s + v * a / b; };
  };
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
  if (!mode) return elementwise<Promote::IntToFloat, kNumericSet>(op, {a, b}, true_div_fn, target);
  if (*mode == "floor")
    return elementwise<Promote::Default, kNumericSet>(op, {a, b}, floor_div_fn, target);
  if (*mode == "trunc")
    return elementwise<Promote::Default, kNumericSet>(op, {a, b}, trunc_div_fn, target);
  fail(op, "expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", *mode, "'");
}

// pow with a scalar exponent: the common exponents take exact, faster paths (as PyTorch).
Tensor pow_scalar_impl(const char* op, const Tensor& base, Scalar e, const Tensor* target) {
  if (is_integral(base.dtype(), true) && !e.is_floating_point())
    EMBER_CHECK(e.to_int() >= 0, op, "Integers to negative integer powers are not allowed.");
  const double v = e.to_double();
  auto run = [&](auto make) {
    return elementwise<Promote::Default, kNumericSet>(op, {base, e}, make, target);
  };
  if (v == 1) return run([]<class T>() { return [](auto x, auto) { return x; }; });
  if (v == 2) return run([]<class T>() { return [](auto x, auto) { return x * x; }; });
  if (v == 3) return run([]<class T>() { return [](auto x, auto) { return x * x * x; }; });
  if (is_floating_point(result_type(base, e))) {
    if (v == 0.5) return run([]<class T>() { return [](auto x, auto) { return cpu::sqrt(x); }; });
    if (v == -0.5)
      return run([]<class T>() { return [](auto x, auto) { return T(1) / cpu::sqrt(x); }; });
    if (v == -1) return run([]<class T>() { return [](auto x, auto) { return T(1) / x; }; });
    if (v == -2) return run([]<class T>() { return [](auto x, auto) { return T(1) / (x * x); }; });
  }
  return elementwise<Promote::Default, kNumericSet>(op, {base, e}, pow_fn, target);
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

}  // namespace

// ── free functions ──────────────────────────────────────────────────────
Tensor add(const Tensor& a, const Tensor& b, Scalar alpha) {
  Recorder rec("add", {&a, &b});
  Tensor out = elementwise<Promote::Default, kAllSet>("add", {a, b}, add_fn("add", alpha));
  if (rec) rec.record("AddBackward0", {out}, {}, add_backward(alpha, false));
  return out;
}
Tensor add(const Tensor& a, Scalar b, Scalar alpha) {
  Recorder rec("add", {&a});
  Tensor out = elementwise<Promote::Default, kAllSet>("add", {a, b}, add_fn("add", alpha));
  if (rec) rec.record("AddBackward1", {out}, {}, add_backward(alpha, false));
  return out;
}
Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha) {
  check_not_bool_sub(a, b);
  Recorder rec("sub", {&a, &b});
  Tensor out = elementwise<Promote::Default, kNumericSet>("sub", {a, b}, sub_fn("sub", alpha));
  if (rec) rec.record("SubBackward0", {out}, {}, add_backward(alpha, true));
  return out;
}
Tensor sub(const Tensor& a, Scalar b, Scalar alpha) {
  check_not_bool_sub(a, b);
  Recorder rec("sub", {&a});
  Tensor out = elementwise<Promote::Default, kNumericSet>("sub", {a, b}, sub_fn("sub", alpha));
  if (rec) rec.record("SubBackward1", {out}, {}, add_backward(alpha, false));
  return out;
}
Tensor rsub(const Tensor& a, Scalar b) {
  check_not_bool_sub(a, b);
  Recorder rec("rsub", {&a});
  Tensor out = elementwise<Promote::Default, kNumericSet>("sub", {b, a}, sub_fn("sub", 1));
  if (rec)
    rec.record("RsubBackward1", {out}, {}, [](const Grads& g, const Saved&) {
      return TensorList{-g[0]};
    });
  return out;
}
Tensor mul(const Tensor& a, const Tensor& b) {
  Recorder rec("mul", {&a, &b});
  Tensor out = elementwise<Promote::Default, kAllSet>("mul", {a, b}, mul_fn);
  if (rec)
    rec.record("MulBackward0", {out}, {b.requires_grad() ? a : Tensor(), if_needed_by(a, b)},
               mul_backward);
  return out;
}
Tensor mul(const Tensor& a, Scalar b) {
  Recorder rec("mul", {&a});
  Tensor out = elementwise<Promote::Default, kAllSet>("mul", {a, b}, mul_fn);
  if (rec)
    rec.record("MulBackward1", {out}, {}, [b](const Grads& g, const Saved&) {
      return TensorList{g[0] * b};
    });
  return out;
}
Tensor div(const Tensor& a, const Tensor& b, DivOptions o) {
  Recorder rec("div", {&a, &b});
  Tensor out = div_impl("div", a, b, o.rounding_mode, nullptr);
  if (rec && !o.rounding_mode)
    rec.record("DivBackward0", {out}, {b.requires_grad() ? a : Tensor(), b}, div_backward);
  else if (rec)  // floor/trunc division is piecewise constant: zero gradients, as PyTorch
    rec.record("DivBackward2", {out}, {}, [](const Grads& g, const Saved&) {
      return TensorList{zeros_like(g[0]), zeros_like(g[0])};
    });
  return out;
}
Tensor div(const Tensor& a, Scalar b, DivOptions o) {
  Recorder rec("div", {&a});
  Tensor out = div_impl("div", a, b, o.rounding_mode, nullptr);
  if (rec)
    rec.record(o.rounding_mode ? "DivBackward3" : "DivBackward1", {out}, {},
               [b, exact = !o.rounding_mode](const Grads& g, const Saved&) {
                 return TensorList{exact ? g[0] / b : zeros_like(g[0])};
               });
  return out;
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
  Tensor out = elementwise<Promote::Default, kNumericSet>("remainder", {a, b}, remainder_fn);
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
  Tensor out = elementwise<Promote::Default, kNumericSet>("remainder", {a, b}, remainder_fn);
  if (rec)
    rec.record("RemainderBackward0", {out}, {}, [](const Grads& g, const Saved&) {
      return TensorList{g[0]};
    });
  return out;
}
Tensor remainder(Scalar a, const Tensor& b) {
  Recorder rec("remainder", {&b});
  Tensor out = elementwise<Promote::Default, kNumericSet>("remainder", {a, b}, remainder_fn);
  if (rec) record_not_implemented(rec, out, "remainder");
  return out;
}
// a - trunc(a / b) * b: d/da = 1, d/db = -trunc(a / b).
Tensor fmod(const Tensor& a, const Tensor& b) {
  Recorder rec("fmod", {&a, &b});
  Tensor out = elementwise<Promote::Default, kNumericSet>("fmod", {a, b}, fmod_fn);
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
  Tensor out = elementwise<Promote::Default, kNumericSet>("fmod", {a, b}, fmod_fn);
  if (rec)
    rec.record("FmodBackward0", {out}, {}, [](const Grads& g, const Saved&) {
      return TensorList{g[0]};
    });
  return out;
}
Tensor pow(const Tensor& base, const Tensor& exponent) {
  Recorder rec("pow", {&base, &exponent});
  Tensor out = elementwise<Promote::Default, kNumericSet>("pow", {base, exponent}, pow_fn);
  if (rec)
    rec.record("PowBackward1", {out}, {base, exponent},
               pow_tensor_backward,
               {if_needed_by(exponent, out)});
  return out;
}
Tensor pow(const Tensor& base, Scalar exponent) {
  Recorder rec("pow", {&base});
  Tensor out = pow_scalar_impl("pow", base, exponent, nullptr);
  if (rec)
    rec.record("PowBackward0", {out}, {base}, [exponent](const Grads& g, const Saved& s) {
      return TensorList{pow_backward_self(g[0], s[0], exponent)};
    });
  return out;
}
Tensor pow(Scalar base, const Tensor& exponent) {
  Recorder rec("pow", {&exponent});
  // PyTorch allocates this output row-major whatever the exponent's layout.
  Tensor out =
      empty(exponent.sizes(), {.dtype = result_type(base, exponent), .device = exponent.device()});
  out = elementwise<Promote::Default, kNumericSet>("pow", {base, exponent}, pow_fn, &out, true);
  if (rec)
    rec.record("PowBackward2", {out}, {exponent}, [base](const Grads& g, const Saved& s) {
      const Tensor a = full({}, base, {.dtype = s[1].dtype()});
      return TensorList{pow_backward_exponent(g[0], a, s[0], s[1])};
    }, {out});
  return out;
}
Tensor atan2(const Tensor& a, const Tensor& b) {
  Recorder rec("atan2", {&a, &b});
  Tensor out = elementwise<Promote::IntToFloat, kFloatingSet>(
      "atan2", {a, b}, []<class T>() { return [](auto y, auto x) { return cpu::atan2(y, x); }; });
  if (rec)
    rec.record("Atan2Backward0", {out}, {a, b}, [](const Grads& g, const Saved& s) {
      const Tensor recip = (s[0] * s[0] + s[1] * s[1]).reciprocal();
      return TensorList{g[0] * s[1] * recip, g[0] * -s[0] * recip};
    });
  return out;
}
Tensor maximum(const Tensor& a, const Tensor& b) {
  Recorder rec("maximum", {&a, &b});
  Tensor out = elementwise<Promote::Default, kAllSet>("maximum", {a, b}, maximum_fn);
  if (rec)
    rec.record("MaximumBackward0", {out}, {a, b}, [](const Grads& g, const Saved& s) {
      return max_min_backward(g, s, true);
    });
  return out;
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  Recorder rec("minimum", {&a, &b});
  Tensor out = elementwise<Promote::Default, kAllSet>("minimum", {a, b}, minimum_fn);
  if (rec)
    rec.record("MinimumBackward0", {out}, {a, b}, [](const Grads& g, const Saved& s) {
      return max_min_backward(g, s, false);
    });
  return out;
}
Tensor fmax(const Tensor& a, const Tensor& b) {
  Recorder rec("fmax", {&a, &b});
  Tensor out = elementwise<Promote::Default, kAllSet>("fmax", {a, b}, fmax_fn);
  if (rec)
    rec.record("FmaxBackward0", {out}, {a, b}, [](const Grads& g, const Saved& s) {
      return fmax_fmin_backward(g, s, true);
    });
  return out;
}
Tensor fmin(const Tensor& a, const Tensor& b) {
  Recorder rec("fmin", {&a, &b});
  Tensor out = elementwise<Promote::Default, kAllSet>("fmin", {a, b}, fmin_fn);
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
      elementwise<Promote::Default, kFloatingSet>("lerp", {start, end}, lerp_scalar_fn(weight));
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
  Tensor out = elementwise<Promote::Default, kFloatingSet>("lerp", {start, end, weight}, lerp_fn);
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
      elementwise<Promote::Default, kNumericSet>("addcmul", {self, t1, t2}, addcmul_fn(value));
  if (rec)
    rec.record("AddcmulBackward0", {out}, {if_needed_by(t2, t1), if_needed_by(t1, t2)},
               addcmul_backward(value));
  return out;
}
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value) {
  check_addcdiv("addcdiv", t1, t2);
  Recorder rec("addcdiv", {&self, &t1, &t2});
  Tensor out =
      elementwise<Promote::Default, kNumericSet>("addcdiv", {self, t1, t2}, addcdiv_fn(value));
  if (rec)
    rec.record("AddcdivBackward0", {out}, {if_needed_by(t2, t1), t2}, addcdiv_backward(value));
  return out;
}
Tensor hypot(const Tensor& a, const Tensor& b) {
  Recorder rec("hypot", {&a, &b});
  Tensor out = elementwise<Promote::Default, kFloatingSet>(
      "hypot", {a, b}, []<class T>() { return [](T x, T y) { return std::hypot(x, y); }; });
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
  Tensor out = elementwise<Promote::IntToFloat, kFloatingSet>("xlogy", {a, b}, []<class T>() {
    return [](T x, T y) -> T {
      if (y != y) return y;
      return x == 0 ? T(0) : x * std::log(y);
    };
  });
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
Tensor& Tensor::add_(const Tensor& o, Scalar alpha) {
  Recorder rec(Recorder::InPlace{}, "add_", *this, {&o});
  elementwise<Promote::Default, kAllSet>("add_", {*this, o}, add_fn("add_", alpha), this);
  if (rec) rec.record("AddBackward0", {*this}, {}, add_backward(alpha, false));
  return *this;
}
Tensor& Tensor::add_(Scalar o, Scalar alpha) {
  Recorder rec(Recorder::InPlace{}, "add_", *this, {});
  elementwise<Promote::Default, kAllSet>("add_", {*this, o}, add_fn("add_", alpha), this);
  if (rec) rec.record("AddBackward1", {*this}, {}, add_backward(alpha, false));
  return *this;
}
Tensor Tensor::sub(const Tensor& o, Scalar alpha) const { return ember::sub(*this, o, alpha); }
Tensor Tensor::sub(Scalar o, Scalar alpha) const { return ember::sub(*this, o, alpha); }
Tensor& Tensor::sub_(const Tensor& o, Scalar alpha) {
  check_not_bool_sub(*this, o);
  Recorder rec(Recorder::InPlace{}, "sub_", *this, {&o});
  elementwise<Promote::Default, kNumericSet>("sub_", {*this, o}, sub_fn("sub_", alpha), this);
  if (rec) rec.record("SubBackward0", {*this}, {}, add_backward(alpha, true));
  return *this;
}
Tensor& Tensor::sub_(Scalar o, Scalar alpha) {
  check_not_bool_sub(*this, o);
  Recorder rec(Recorder::InPlace{}, "sub_", *this, {});
  elementwise<Promote::Default, kNumericSet>("sub_", {*this, o}, sub_fn("sub_", alpha), this);
  if (rec) rec.record("SubBackward1", {*this}, {}, add_backward(alpha, false));
  return *this;
}
Tensor Tensor::mul(const Tensor& o) const { return ember::mul(*this, o); }
Tensor Tensor::mul(Scalar o) const { return ember::mul(*this, o); }
Tensor& Tensor::mul_(const Tensor& o) {
  const Tensor self_before = autograd::original_self(*this, o.requires_grad());
  Recorder rec(Recorder::InPlace{}, "mul_", *this, {&o});
  const Tensor other = if_needed_by(*this, o);
  elementwise<Promote::Default, kAllSet>("mul_", {*this, o}, mul_fn, this);
  if (rec) rec.record("MulBackward0", {*this}, {self_before, other}, mul_backward);
  return *this;
}
Tensor& Tensor::mul_(Scalar o) {
  Recorder rec(Recorder::InPlace{}, "mul_", *this, {});
  elementwise<Promote::Default, kAllSet>("mul_", {*this, o}, mul_fn, this);
  if (rec)
    rec.record("MulBackward1", {*this}, {}, [o](const Grads& g, const Saved&) {
      return TensorList{g[0] * o};
    });
  return *this;
}
Tensor Tensor::div(const Tensor& o, std::optional<std::string> m) const {
  return ember::div(*this, o, {m});
}
Tensor Tensor::div(Scalar o, std::optional<std::string> m) const {
  return ember::div(*this, o, {m});
}
Tensor& Tensor::div_(const Tensor& o, std::optional<std::string> m) {
  const Tensor self_before = autograd::original_self(*this, !m && o.requires_grad());
  Recorder rec(Recorder::InPlace{}, "div_", *this, {&o});
  div_impl("div_", *this, o, m, this);
  if (rec && !m) rec.record("DivBackward0", {*this}, {self_before, o}, div_backward);
  else if (rec)
    rec.record("DivBackward2", {*this}, {}, [](const Grads& g, const Saved&) {
      return TensorList{zeros_like(g[0]), zeros_like(g[0])};
    });
  return *this;
}
Tensor& Tensor::div_(Scalar o, std::optional<std::string> m) {
  Recorder rec(Recorder::InPlace{}, "div_", *this, {});
  div_impl("div_", *this, o, m, this);
  if (rec)
    rec.record(m ? "DivBackward3" : "DivBackward1", {*this}, {},
               [o, exact = !m](const Grads& g, const Saved&) {
                 return TensorList{exact ? g[0] / o : zeros_like(g[0])};
               });
  return *this;
}
Tensor Tensor::floor_divide(const Tensor& o) const { return ember::floor_divide(*this, o); }
Tensor Tensor::floor_divide(Scalar o) const { return ember::floor_divide(*this, o); }
Tensor Tensor::remainder(const Tensor& o) const { return ember::remainder(*this, o); }
Tensor Tensor::remainder(Scalar o) const { return ember::remainder(*this, o); }
Tensor Tensor::fmod(const Tensor& o) const { return ember::fmod(*this, o); }
Tensor Tensor::fmod(Scalar o) const { return ember::fmod(*this, o); }
Tensor Tensor::pow(const Tensor& e) const { return ember::pow(*this, e); }
Tensor Tensor::pow(Scalar e) const { return ember::pow(*this, e); }
Tensor& Tensor::pow_(const Tensor& e) {
  const Tensor self_before =
      autograd::original_self(*this, requires_grad() || e.requires_grad());
  Recorder rec(Recorder::InPlace{}, "pow_", *this, {&e});
  elementwise<Promote::Default, kNumericSet>("pow_", {*this, e}, pow_fn, this);
  if (rec)
    rec.record("PowBackward1", {*this}, {self_before, e},
               pow_tensor_backward,
               {if_needed_by(e, *this)});
  return *this;
}
Tensor& Tensor::pow_(Scalar e) {
  const Tensor self_before = autograd::original_self(*this, requires_grad());
  Recorder rec(Recorder::InPlace{}, "pow_", *this, {});
  pow_scalar_impl("pow_", *this, e, this);
  if (rec)
    rec.record("PowBackward0", {*this}, {self_before}, [e](const Grads& g, const Saved& s) {
      return TensorList{pow_backward_self(g[0], s[0], e)};
    });
  return *this;
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
Tensor& Tensor::addcmul_(const Tensor& a, const Tensor& b, Scalar v) {
  Recorder rec(Recorder::InPlace{}, "addcmul_", *this, {&a, &b});
  elementwise<Promote::Default, kNumericSet>("addcmul_", {*this, a, b}, addcmul_fn(v), this);
  if (rec)
    rec.record("AddcmulBackward0", {*this}, {if_needed_by(b, a), if_needed_by(a, b)},
               addcmul_backward(v));
  return *this;
}
Tensor Tensor::addcdiv(const Tensor& a, const Tensor& b, Scalar v) const {
  return ember::addcdiv(*this, a, b, v);
}
Tensor& Tensor::addcdiv_(const Tensor& a, const Tensor& b, Scalar v) {
  check_addcdiv("addcdiv_", a, b);
  Recorder rec(Recorder::InPlace{}, "addcdiv_", *this, {&a, &b});
  elementwise<Promote::Default, kNumericSet>("addcdiv_", {*this, a, b}, addcdiv_fn(v), this);
  if (rec) rec.record("AddcdivBackward0", {*this}, {if_needed_by(b, a), b}, addcdiv_backward(v));
  return *this;
}

}  // namespace ember
