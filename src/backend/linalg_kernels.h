// The matrix-product family's kernel (src/ops/linalg.cpp): every linalg op (mm, bmm, mv, dot,
// addmm, addmv, baddbmm and the composites over them) is one batched gemm after the front end
// has checked shapes and dtypes, expanded `self` into the output and viewed its operands as 3-D.
#pragma once

#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember::backend {

struct LinalgKernels {
  /// c = beta * c + alpha * (a @ b), batch by batch: a (B, M, K), b (B, K, N), c (B, M, N), one
  /// dtype for all three. a and b may have any strides (a stride-0 batch is a broadcast
  /// operand); c does not overlap them. beta == 0 ignores c's contents (NaN there does not leak).
  void (*gemm)(const Tensor& a, const Tensor& b, const Tensor& c, Scalar alpha,
               Scalar beta) = nullptr;
};

}  // namespace ember::backend
