// Comparisons and logic as free functions and C++ operators (results are bool): eq ... ge,
// logical and bitwise ops, isnan/isinf/isfinite, where, masked_fill, allclose/isclose. Binary ops
// broadcast and promote like PyTorch.
#pragma once

#include "ember/tensor.h"

namespace ember {

Tensor eq(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);
Tensor logical_xor(const Tensor& a, const Tensor& b);
Tensor logical_not(const Tensor& t);
Tensor bitwise_and(const Tensor& a, const Tensor& b);
Tensor bitwise_or(const Tensor& a, const Tensor& b);
Tensor bitwise_xor(const Tensor& a, const Tensor& b);
Tensor bitwise_not(const Tensor& t);
Tensor isnan(const Tensor& t);
Tensor isinf(const Tensor& t);
Tensor isfinite(const Tensor& t);
/// Elements of a where condition holds, else of b (broadcast, promoted).
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
Tensor where(const Tensor& condition, const Tensor& a, Scalar b);
Tensor where(const Tensor& condition, Scalar a, const Tensor& b);
Tensor where(const Tensor& condition, Scalar a, Scalar b);
Tensor masked_fill(const Tensor& t, const Tensor& mask, Scalar value);
/// True when every element of a and b is close: |a - b| <= atol + rtol * |b|.
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8,
              bool equal_nan = false);
Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8,
               bool equal_nan = false);

// ── operators ───────────────────────────────────────────────────────────
inline Tensor operator==(const Tensor& a, const Tensor& b) { return a.eq(b); }
inline Tensor operator==(const Tensor& a, Scalar b) { return a.eq(b); }
inline Tensor operator==(Scalar a, const Tensor& b) { return b.eq(a); }
inline Tensor operator!=(const Tensor& a, const Tensor& b) { return a.ne(b); }
inline Tensor operator!=(const Tensor& a, Scalar b) { return a.ne(b); }
inline Tensor operator!=(Scalar a, const Tensor& b) { return b.ne(a); }
inline Tensor operator<(const Tensor& a, const Tensor& b) { return a.lt(b); }
inline Tensor operator<(const Tensor& a, Scalar b) { return a.lt(b); }
inline Tensor operator<(Scalar a, const Tensor& b) { return b.gt(a); }
inline Tensor operator<=(const Tensor& a, const Tensor& b) { return a.le(b); }
inline Tensor operator<=(const Tensor& a, Scalar b) { return a.le(b); }
inline Tensor operator<=(Scalar a, const Tensor& b) { return b.ge(a); }
inline Tensor operator>(const Tensor& a, const Tensor& b) { return a.gt(b); }
inline Tensor operator>(const Tensor& a, Scalar b) { return a.gt(b); }
inline Tensor operator>(Scalar a, const Tensor& b) { return b.lt(a); }
inline Tensor operator>=(const Tensor& a, const Tensor& b) { return a.ge(b); }
inline Tensor operator>=(const Tensor& a, Scalar b) { return a.ge(b); }
inline Tensor operator>=(Scalar a, const Tensor& b) { return b.le(a); }
inline Tensor operator!(const Tensor& a) { return logical_not(a); }
inline Tensor operator~(const Tensor& a) { return bitwise_not(a); }
Tensor operator&(const Tensor& a, const Tensor& b);
Tensor operator&(const Tensor& a, Scalar b);
Tensor operator|(const Tensor& a, const Tensor& b);
Tensor operator|(const Tensor& a, Scalar b);
Tensor operator^(const Tensor& a, const Tensor& b);
Tensor operator^(const Tensor& a, Scalar b);

}  // namespace ember
