// Comparisons (bool results), logical and bitwise ops, isnan/isinf/isfinite, where, masked_fill,
// isclose/allclose: the front ends; each kernel is an ElementwiseKernel identity (the CPU's in
// src/backend/cpu/compare.cpp).

#include "ember/compare.h"

#include "ember/creation.h"
#include "ember/math.h"
#include "ember/shape.h"
#include "ops/elementwise.h"
#include "ops/op_prelude.h"

namespace ember {
namespace {

using backend::ElementwiseKernel;

Tensor compare(const char* op, ElementwiseKernel k, const Operand& a, const Operand& b) {
  OpScope scope(op, {a.tensor(), b.tensor()});
  return elementwise(op, k, Promote::ToBool, {a, b});
}

Tensor logical(const char* op, ElementwiseKernel k, const Operand& a, const Operand& b) {
  OpScope scope(op, {a.tensor(), b.tensor()});
  return elementwise(op, k, Promote::Bool, {a, b});
}

Tensor bitwise(const char* op, ElementwiseKernel k, const Operand& a, const Operand& b) {
  OpScope scope(op, {a.tensor(), b.tensor()});
  return elementwise(op, k, Promote::Default, {a, b});
}

Tensor classify(const char* op, ElementwiseKernel k, const Tensor& t) {
  OpScope scope(op, {&t});
  return elementwise(op, k, Promote::ToBool, {t});
}

void check_mask(const char* op, const Tensor& mask) {
  EMBER_CHECK(mask.dtype() == kBool, op, "only supports boolean masks, but got mask with dtype ",
              mask.dtype());
}

Tensor& masked_fill_impl(Tensor& self, const Tensor& mask, Scalar value, const char* op) {
  check_mask(op, mask);
  const Dtype dtype = self.dtype();
  const Tensor m = mask.to(dtype);
  elementwise(op, ElementwiseKernel::masked_fill, Promote::Default, {self, m}, {.scalar = {value}},
              &self);
  return self;
}

}  // namespace

Tensor eq(const Tensor& a, const Tensor& b) { return compare("eq", ElementwiseKernel::eq, a, b); }
Tensor ne(const Tensor& a, const Tensor& b) { return compare("ne", ElementwiseKernel::ne, a, b); }
Tensor lt(const Tensor& a, const Tensor& b) { return compare("lt", ElementwiseKernel::lt, a, b); }
Tensor le(const Tensor& a, const Tensor& b) { return compare("le", ElementwiseKernel::le, a, b); }
Tensor gt(const Tensor& a, const Tensor& b) { return compare("gt", ElementwiseKernel::gt, a, b); }
Tensor ge(const Tensor& a, const Tensor& b) { return compare("ge", ElementwiseKernel::ge, a, b); }
Tensor Tensor::eq(const Tensor& o) const { return compare("eq", ElementwiseKernel::eq, *this, o); }
Tensor Tensor::eq(Scalar o) const { return compare("eq", ElementwiseKernel::eq, *this, o); }
Tensor Tensor::ne(const Tensor& o) const { return compare("ne", ElementwiseKernel::ne, *this, o); }
Tensor Tensor::ne(Scalar o) const { return compare("ne", ElementwiseKernel::ne, *this, o); }
Tensor Tensor::lt(const Tensor& o) const { return compare("lt", ElementwiseKernel::lt, *this, o); }
Tensor Tensor::lt(Scalar o) const { return compare("lt", ElementwiseKernel::lt, *this, o); }
Tensor Tensor::le(const Tensor& o) const { return compare("le", ElementwiseKernel::le, *this, o); }
Tensor Tensor::le(Scalar o) const { return compare("le", ElementwiseKernel::le, *this, o); }
Tensor Tensor::gt(const Tensor& o) const { return compare("gt", ElementwiseKernel::gt, *this, o); }
Tensor Tensor::gt(Scalar o) const { return compare("gt", ElementwiseKernel::gt, *this, o); }
Tensor Tensor::ge(const Tensor& o) const { return compare("ge", ElementwiseKernel::ge, *this, o); }
Tensor Tensor::ge(Scalar o) const { return compare("ge", ElementwiseKernel::ge, *this, o); }

Tensor logical_and(const Tensor& a, const Tensor& b) {
  return logical("logical_and", ElementwiseKernel::logical_and, a, b);
}
Tensor logical_or(const Tensor& a, const Tensor& b) {
  return logical("logical_or", ElementwiseKernel::logical_or, a, b);
}
Tensor logical_xor(const Tensor& a, const Tensor& b) {
  return logical("logical_xor", ElementwiseKernel::logical_xor, a, b);
}
Tensor logical_not(const Tensor& t) {
  OpScope scope("logical_not", {&t});
  return elementwise("logical_not", ElementwiseKernel::logical_not, Promote::Bool, {t});
}
Tensor Tensor::logical_and(const Tensor& o) const { return ember::logical_and(*this, o); }
Tensor Tensor::logical_or(const Tensor& o) const { return ember::logical_or(*this, o); }
Tensor Tensor::logical_xor(const Tensor& o) const { return ember::logical_xor(*this, o); }
Tensor Tensor::logical_not() const { return ember::logical_not(*this); }

Tensor bitwise_and(const Tensor& a, const Tensor& b) { return bitwise("bitwise_and",
                                                                      ElementwiseKernel::bitwise_and, a, b); }
Tensor bitwise_or(const Tensor& a, const Tensor& b) { return bitwise("bitwise_or",
                                                                     ElementwiseKernel::bitwise_or, a, b); }
Tensor bitwise_xor(const Tensor& a, const Tensor& b) { return bitwise("bitwise_xor",
                                                                      ElementwiseKernel::bitwise_xor, a, b); }
Tensor bitwise_not(const Tensor& t) {
  OpScope scope("bitwise_not", {&t});
  return elementwise("bitwise_not", ElementwiseKernel::bitwise_not, Promote::Default, {t});
}
Tensor operator&(const Tensor& a, const Tensor& b) { return bitwise("bitwise_and",
                                                                    ElementwiseKernel::bitwise_and, a, b); }
Tensor operator&(const Tensor& a, Scalar b) { return bitwise("bitwise_and",
                                                             ElementwiseKernel::bitwise_and, a, b); }
Tensor operator|(const Tensor& a, const Tensor& b) { return bitwise("bitwise_or",
                                                                    ElementwiseKernel::bitwise_or, a, b); }
Tensor operator|(const Tensor& a, Scalar b) { return bitwise("bitwise_or",
                                                             ElementwiseKernel::bitwise_or, a, b); }
Tensor operator^(const Tensor& a, const Tensor& b) { return bitwise("bitwise_xor",
                                                                    ElementwiseKernel::bitwise_xor, a, b); }
Tensor operator^(const Tensor& a, Scalar b) { return bitwise("bitwise_xor",
                                                             ElementwiseKernel::bitwise_xor, a, b); }
Tensor Tensor::bitwise_and(const Tensor& o) const { return ember::bitwise_and(*this, o); }
Tensor Tensor::bitwise_or(const Tensor& o) const { return ember::bitwise_or(*this, o); }
Tensor Tensor::bitwise_xor(const Tensor& o) const { return ember::bitwise_xor(*this, o); }
Tensor Tensor::bitwise_not() const { return ember::bitwise_not(*this); }

Tensor isnan(const Tensor& t) { return classify("isnan", ElementwiseKernel::isnan, t); }
Tensor isinf(const Tensor& t) { return classify("isinf", ElementwiseKernel::isinf, t); }
Tensor isfinite(const Tensor& t) { return classify("isfinite", ElementwiseKernel::isfinite, t); }
Tensor Tensor::isnan() const { return ember::isnan(*this); }
Tensor Tensor::isinf() const { return ember::isinf(*this); }
Tensor Tensor::isfinite() const { return ember::isfinite(*this); }

Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(condition.dtype() == kBool, "where", "expected condition to be a boolean tensor, "
              "but got a tensor with dtype ", condition.dtype());
  Recorder rec("where", {&a, &b});
  check_same_device("where", std::array{&condition, &a, &b});
  const Dtype dtype = result_type(a, b);
  Tensor out = elementwise("where", ElementwiseKernel::where, Promote::Default,
                           {condition.to(dtype), a.to(dtype), b.to(dtype)});
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
Tensor& Tensor::masked_fill_(const Tensor& mask, Scalar value) const {
  Recorder rec(Recorder::InPlace{}, "masked_fill_", *this, {});
  masked_fill_impl(mut(), mask, value, "masked_fill_");
  if (rec) record_masked_fill(rec, *this, mask, nullptr);
  return mut();
}
Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) const {
  EMBER_CHECK(value.dim() == 0, "masked_fill_", "only supports a 0-dimensional value tensor, ",
              "but got tensor with ", value.dim(), " dimension(s).");
  Recorder rec(Recorder::InPlace{}, "masked_fill_", *this, {&value});
  masked_fill_impl(mut(), mask, value.item(), "masked_fill_");
  if (rec) record_masked_fill(rec, *this, mask, &value);
  return mut();
}

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  OpScope scope("isclose", {&a, &b});
  EMBER_CHECK(a.dtype() == b.dtype(), "isclose", a.dtype(), " did not match ", b.dtype());
  // The kernel's rule is PyTorch's: equal, or both NaN with equal_nan, or |x - y| finite and
  // <= atol + |rtol * y|.
  return elementwise("isclose", ElementwiseKernel::isclose, Promote::ToBool, {a, b},
                     {.real = {rtol, atol}, .flag = equal_nan});
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  return isclose(a, b, rtol, atol, equal_nan).all().item<bool>();
}

}  // namespace ember
