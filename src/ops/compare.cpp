// Comparisons (bool results), logical and bitwise ops, isnan/isinf/isfinite, where, masked_fill,
// isclose/allclose.
#include <cmath>

#include "autograd/function.h"
#include "ember/creation.h"
#include "ember/shape.h"
#include "ember/math.h"
#include "ops/elementwise.h"

namespace ember {
namespace {

using autograd::Grads;
using autograd::Recorder;
using autograd::Saved;
using autograd::TensorList;

#define EMBER_COMPARE_FN(name, op) \
  inline constexpr auto name##_fn = []<class T>() { return [](T x, T y) { return x op y; }; };
EMBER_COMPARE_FN(eq, ==)
EMBER_COMPARE_FN(ne, !=)
EMBER_COMPARE_FN(lt, <)
EMBER_COMPARE_FN(le, <=)
EMBER_COMPARE_FN(gt, >)
EMBER_COMPARE_FN(ge, >=)
EMBER_COMPARE_FN(logical_and, &&)
EMBER_COMPARE_FN(logical_or, ||)
EMBER_COMPARE_FN(logical_xor, !=)
#undef EMBER_COMPARE_FN

template <class Make>
Tensor compare(const char* op, const Operand& a, const Operand& b, const Make& make) {
  OpScope scope(op, {a.tensor(), b.tensor()});
  return elementwise<Promote::ToBool, DtypeSet::All>(op, {a, b}, make);
}

template <class Make>
Tensor logical(const char* op, const Operand& a, const Operand& b, const Make& make) {
  OpScope scope(op, {a.tensor(), b.tensor()});
  return elementwise<Promote::Bool, DtypeSet::All>(op, {a, b}, make);
}

template <class Make>
Tensor bitwise(const char* op, const Operand& a, const Operand& b, const Make& make) {
  OpScope scope(op, {a.tensor(), b.tensor()});
  return elementwise<Promote::Default, DtypeSet::Integral>(op, {a, b}, make);
}

inline constexpr auto and_fn = []<class T>() { return [](T x, T y) { return T(x & y); }; };
inline constexpr auto or_fn = []<class T>() { return [](T x, T y) { return T(x | y); }; };
inline constexpr auto xor_fn = []<class T>() { return [](T x, T y) { return T(x ^ y); }; };

template <class Make>
Tensor classify(const char* op, const Tensor& t, const Make& make) {
  OpScope scope(op, {&t});
  return elementwise<Promote::ToBool, DtypeSet::All>(op, {t}, make);
}

void check_mask(const char* op, const Tensor& mask) {
  EMBER_CHECK(mask.dtype() == kBool, op, "only supports boolean masks, but got mask with dtype ",
              mask.dtype());
}

Tensor& masked_fill_impl(Tensor& self, const Tensor& mask, Scalar value, const char* op) {
  check_mask(op, mask);
  const Dtype dtype = self.dtype();
  const Tensor m = mask.to(dtype);
  elementwise<Promote::Default, DtypeSet::All>(op, {self, m}, [value]<class T>() {
    return [v = value.to<T>()](T x, T keep) { return keep != T(0) ? v : x; };
  }, &self);
  return self;
}

}  // namespace

Tensor eq(const Tensor& a, const Tensor& b) { return compare("eq", a, b, eq_fn); }
Tensor ne(const Tensor& a, const Tensor& b) { return compare("ne", a, b, ne_fn); }
Tensor lt(const Tensor& a, const Tensor& b) { return compare("lt", a, b, lt_fn); }
Tensor le(const Tensor& a, const Tensor& b) { return compare("le", a, b, le_fn); }
Tensor gt(const Tensor& a, const Tensor& b) { return compare("gt", a, b, gt_fn); }
Tensor ge(const Tensor& a, const Tensor& b) { return compare("ge", a, b, ge_fn); }
Tensor Tensor::eq(const Tensor& o) const { return compare("eq", *this, o, eq_fn); }
Tensor Tensor::eq(Scalar o) const { return compare("eq", *this, o, eq_fn); }
Tensor Tensor::ne(const Tensor& o) const { return compare("ne", *this, o, ne_fn); }
Tensor Tensor::ne(Scalar o) const { return compare("ne", *this, o, ne_fn); }
Tensor Tensor::lt(const Tensor& o) const { return compare("lt", *this, o, lt_fn); }
Tensor Tensor::lt(Scalar o) const { return compare("lt", *this, o, lt_fn); }
Tensor Tensor::le(const Tensor& o) const { return compare("le", *this, o, le_fn); }
Tensor Tensor::le(Scalar o) const { return compare("le", *this, o, le_fn); }
Tensor Tensor::gt(const Tensor& o) const { return compare("gt", *this, o, gt_fn); }
Tensor Tensor::gt(Scalar o) const { return compare("gt", *this, o, gt_fn); }
Tensor Tensor::ge(const Tensor& o) const { return compare("ge", *this, o, ge_fn); }
Tensor Tensor::ge(Scalar o) const { return compare("ge", *this, o, ge_fn); }

Tensor logical_and(const Tensor& a, const Tensor& b) {
  return logical("logical_and", a, b, logical_and_fn);
}
Tensor logical_or(const Tensor& a, const Tensor& b) {
  return logical("logical_or", a, b, logical_or_fn);
}
Tensor logical_xor(const Tensor& a, const Tensor& b) {
  return logical("logical_xor", a, b, logical_xor_fn);
}
Tensor logical_not(const Tensor& t) {
  OpScope scope("logical_not", {&t});
  return elementwise<Promote::Bool, DtypeSet::All>(
      "logical_not", {t}, []<class T>() { return [](T x) { return !x; }; });
}
Tensor Tensor::logical_and(const Tensor& o) const { return ember::logical_and(*this, o); }
Tensor Tensor::logical_or(const Tensor& o) const { return ember::logical_or(*this, o); }
Tensor Tensor::logical_xor(const Tensor& o) const { return ember::logical_xor(*this, o); }
Tensor Tensor::logical_not() const { return ember::logical_not(*this); }

Tensor bitwise_and(const Tensor& a, const Tensor& b) { return bitwise("bitwise_and", a, b, and_fn); }
Tensor bitwise_or(const Tensor& a, const Tensor& b) { return bitwise("bitwise_or", a, b, or_fn); }
Tensor bitwise_xor(const Tensor& a, const Tensor& b) { return bitwise("bitwise_xor", a, b, xor_fn); }
Tensor bitwise_not(const Tensor& t) {
  OpScope scope("bitwise_not", {&t});
  return elementwise<Promote::Default, DtypeSet::Integral>("bitwise_not", {t}, []<class T>() {
    return [](T x) -> T {
      if constexpr (std::is_same_v<T, bool>) return !x;
      else return T(~x);
    };
  });
}
Tensor operator&(const Tensor& a, const Tensor& b) { return bitwise("bitwise_and", a, b, and_fn); }
Tensor operator&(const Tensor& a, Scalar b) { return bitwise("bitwise_and", a, b, and_fn); }
Tensor operator|(const Tensor& a, const Tensor& b) { return bitwise("bitwise_or", a, b, or_fn); }
Tensor operator|(const Tensor& a, Scalar b) { return bitwise("bitwise_or", a, b, or_fn); }
Tensor operator^(const Tensor& a, const Tensor& b) { return bitwise("bitwise_xor", a, b, xor_fn); }
Tensor operator^(const Tensor& a, Scalar b) { return bitwise("bitwise_xor", a, b, xor_fn); }
Tensor Tensor::bitwise_and(const Tensor& o) const { return ember::bitwise_and(*this, o); }
Tensor Tensor::bitwise_or(const Tensor& o) const { return ember::bitwise_or(*this, o); }
Tensor Tensor::bitwise_xor(const Tensor& o) const { return ember::bitwise_xor(*this, o); }
Tensor Tensor::bitwise_not() const { return ember::bitwise_not(*this); }

Tensor isnan(const Tensor& t) {
  return classify("isnan", t, []<class T>() { return [](T x) { return x != x; }; });
}
Tensor isinf(const Tensor& t) {
  return classify("isinf", t, []<class T>() {
    return [](T x) {
      if constexpr (std::is_floating_point_v<T>) return std::isinf(x);
      else return false;
    };
  });
}
Tensor isfinite(const Tensor& t) {
  return classify("isfinite", t, []<class T>() {
    return [](T x) {
      if constexpr (std::is_floating_point_v<T>) return std::isfinite(x);
      else return true;
    };
  });
}
Tensor Tensor::isnan() const { return ember::isnan(*this); }
Tensor Tensor::isinf() const { return ember::isinf(*this); }
Tensor Tensor::isfinite() const { return ember::isfinite(*this); }

Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(condition.dtype() == kBool, "where", "expected condition to be a boolean tensor, "
              "but got a tensor with dtype ", condition.dtype());
  Recorder rec("where", {&a, &b});
  check_same_device("where", std::array{&condition, &a, &b});
  const Dtype dtype = result_type(a, b);
  Tensor out = elementwise<Promote::Default, DtypeSet::All>(
      "where", {condition.to(dtype), a.to(dtype), b.to(dtype)},
      []<class T>() { return [](T c, T x, T y) { return c != T(0) ? x : y; }; });
  if (rec)
    rec.record("WhereBackward0", {out}, {condition},
               [need_a = a.requires_grad(), need_b = b.requires_grad()](const Grads& g,
                                                                        const Saved& s) {
                 return TensorList{need_a ? where(s[0], g[0], 0) : Tensor(),
                                   need_b ? where(s[0], 0, g[0]) : Tensor()};
               });
  return out;
}
Tensor where(const Tensor& condition, const Tensor& a, Scalar b) {
  return where(condition, a, full({}, b, {.dtype = result_type(a, b)}));
}
Tensor where(const Tensor& condition, Scalar a, const Tensor& b) {
  return where(condition, full({}, a, {.dtype = result_type(a, b)}), b);
}
Tensor where(const Tensor& condition, Scalar a, Scalar b) {
  const Dtype dtype = result_type({a, b});
  return where(condition, full({}, a, {.dtype = dtype}), full({}, b, {.dtype = dtype}));
}
Tensor Tensor::where(const Tensor& condition, const Tensor& other) const {
  return ember::where(condition, *this, other);
}

Tensor masked_fill(const Tensor& t, const Tensor& mask, Scalar value) {
  return t.masked_fill(mask, value);
}

namespace {
// masked_fill's gradients: self's where the mask is off; a 0-d value's, the sum where it is on.
TensorList masked_fill_backward(const Grads& g, const Saved& s, bool value_needs_grad) {
  return {g[0].masked_fill(s[0], 0),
          value_needs_grad ? where(s[0], g[0], 0).sum() : Tensor()};
}
void record_masked_fill(Recorder& rec, const Tensor& out, const Tensor& mask,
                        const Tensor* value) {
  if (!value) {
    rec.record("MaskedFillBackward0", {out}, {mask}, [](const Grads& g, const Saved& s) {
      return masked_fill_backward(g, s, false);
    });
    return;
  }
  rec.record("MaskedFillBackward1", {out}, {mask},
             [need = value->requires_grad()](const Grads& g, const Saved& s) {
               return masked_fill_backward(g, s, need);
             });
}
Tensor masked_fill_out(const Tensor& self, const Tensor& mask, Scalar value) {
  check_mask("masked_fill", mask);
  // A row-major copy whatever self's layout, as PyTorch's clone(MemoryFormat::Contiguous).
  Tensor out = empty(broadcast_shapes(self.sizes(), mask.sizes()), self.options());
  out.copy_(self);
  return masked_fill_impl(out, mask, value, "masked_fill");
}
void check_value_dim(const char* op, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, op, "only supports a 0-dimensional value tensor, but ",
              "got tensor with ", value.dim(), " dimension(s).");
}
}  // namespace

Tensor Tensor::masked_fill(const Tensor& mask, Scalar value) const {
  Recorder rec("masked_fill", {this});
  Tensor out = masked_fill_out(*this, mask, value);
  if (rec) record_masked_fill(rec, out, mask, nullptr);
  return out;
}
Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const {
  check_value_dim("masked_fill", value);
  Recorder rec("masked_fill", {this, &value});
  Tensor out = masked_fill_out(*this, mask, value.item());
  if (rec) record_masked_fill(rec, out, mask, &value);
  return out;
}
Tensor& Tensor::masked_fill_(const Tensor& mask, Scalar value) {
  Recorder rec(Recorder::InPlace{}, "masked_fill_", *this, {});
  masked_fill_impl(*this, mask, value, "masked_fill_");
  if (rec) record_masked_fill(rec, *this, mask, nullptr);
  return *this;
}
Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "masked_fill_", "only supports a 0-dimensional value tensor, ",
              "but got tensor with ", value.dim(), " dimension(s).");
  Recorder rec(Recorder::InPlace{}, "masked_fill_", *this, {&value});
  masked_fill_impl(*this, mask, value.item(), "masked_fill_");
  if (rec) record_masked_fill(rec, *this, mask, &value);
  return *this;
}

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  OpScope scope("isclose", {&a, &b});
  EMBER_CHECK(a.dtype() == b.dtype(), "isclose", a.dtype(), " did not match ", b.dtype());
  // As PyTorch: equal, or both NaN with equal_nan, or |x - y| finite and <= atol + |rtol * y|,
  // the errors computed in the inputs' type (the default float for integers and bool).
  return elementwise<Promote::ToBool, DtypeSet::All>("isclose", {a, b}, [=]<class T>() {
    using M = std::conditional_t<std::is_floating_point_v<T>, T, float>;
    const M r = M(rtol), at = M(atol);
    const bool exact = rtol == 0 && atol == 0;
    return [=](T x, T y) -> bool {
      if (x == y) return true;
      if constexpr (std::is_floating_point_v<T>)
        if (equal_nan && x != x && y != y) return true;
      const M actual = std::abs(M(x) - M(y));
      return !exact && std::isfinite(actual) && actual <= at + std::abs(r * M(y));
    };
  });
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  const Tensor close = isclose(a, b, rtol, atol, equal_nan).contiguous();
  const bool* p = close.data_ptr<bool>();
  for (int64_t i = 0; i < close.numel(); ++i)
    if (!p[i]) return false;
  return true;
}

}  // namespace ember
