// Linear algebra: matrix products (mm, bmm, matmul, mv, dot), their fused scale-and-add forms
// (addmm, addmv, addbmm, baddbmm), linear (nn.Linear's y = x W^T + b) and einsum. No dtype
// promotion, as in PyTorch: both operands must have the same dtype.
#pragma once

#include <string_view>
#include <vector>

#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember {

/// Scales of the add-forms: out = beta * self + alpha * (product). beta == 0 ignores self
/// (NaN and Inf in it are not propagated).
struct AddmmOptions {
  Scalar beta = 1;
  Scalar alpha = 1;
};

/// (n, m) @ (m, p) -> (n, p).
Tensor mm(const Tensor& self, const Tensor& mat2);
/// (b, n, m) @ (b, m, p) -> (b, n, p).
Tensor bmm(const Tensor& self, const Tensor& mat2);
/// PyTorch's matmul: dot, mv, mm, or a batched product with broadcast batch dims; a 1-D operand
/// gets a dim added (in front for the first, at the end for the second) that is removed after.
Tensor matmul(const Tensor& self, const Tensor& other);
/// (n, m) @ (m) -> (n).
Tensor mv(const Tensor& self, const Tensor& vec);
/// Inner product of two 1-D tensors, as a 0-d tensor.
Tensor dot(const Tensor& self, const Tensor& other);
/// dot with the first argument conjugated (the same as dot for real dtypes).
Tensor vdot(const Tensor& self, const Tensor& other);
/// (n) x (m) -> (n, m); promotes dtypes like mul.
Tensor outer(const Tensor& self, const Tensor& vec2);
Tensor ger(const Tensor& self, const Tensor& vec2);

/// beta * self + alpha * (mat1 @ mat2); self broadcasts to (n, p).
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, AddmmOptions options = {});
/// beta * self + alpha * (mat @ vec); self broadcasts to (n).
Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, AddmmOptions options = {});
/// beta * self + alpha * sum_b(batch1[b] @ batch2[b]); self broadcasts to (n, p).
Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
              AddmmOptions options = {});
/// beta * self + alpha * (batch1 @ batch2); self broadcasts to (b, n, p).
Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
               AddmmOptions options = {});

/// x @ weight^T + bias: x (*, in), weight (out, in), bias (out) or undefined -> (*, out).
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});

/// Einstein summation: "ij,jk->ik", "ii->", "bij,bjk->bik", "...ij,...jk->...ik", "ij" (implicit
/// output: non-repeated subscripts in alphabetical order). Operands are contracted left to right.
Tensor einsum(std::string_view equation, const std::vector<Tensor>& tensors);

}  // namespace ember
