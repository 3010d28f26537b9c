// The host half of the CUDA gemm (cuBLAS), apart from the CUDA build so that every build
// compiles and tests it: how a row-major batched product c = beta c + alpha a @ b is handed to
// column-major cublasGemmStridedBatchedEx without copies when the operands' strides allow it.
//
// Note [Row-major gemm through cuBLAS]: a row-major (R, C) matrix with strides (ld, 1) is a
// column-major (C, R) matrix with leading dimension ld, i.e. its transpose. So cuBLAS computes
// c^T (N x M) = b^T (N x K) . a^T (K x M): b is cuBLAS's first operand and a its second, each
// "N" when its rows are contiguous (strides (ld, 1)) and "T" when its columns are (strides
// (1, ld)); any other layout is copied to a contiguous one first. c must have contiguous rows.
#pragma once

#include <cstdint>
#include <optional>

#include "ember/tensor.h"

namespace ember::cuda {

/// One (B, R, C) operand as cuBLAS takes it.
struct GemmOperand {
  bool transpose;        // "T": its columns are contiguous; "N": its rows are
  int64_t ld;            // leading dimension, elements
  int64_t batch_stride;  // elements; 0 for a broadcast batch or a batch of one
};

/// The operand view of x (B, R, C), or nullopt when neither its rows nor its columns are
/// contiguous (then the caller copies it). `as_output` accepts only contiguous rows ("N").
std::optional<GemmOperand> gemm_operand(const Tensor& x, bool as_output = false);

/// The arguments of cublasGemmStridedBatchedEx for c = beta c + alpha a @ b (a (B, M, K), b (B, K,
/// N), c (B, M, N)), in its order: cuBLAS's A is b and its B is a. Every operand must have a
/// gemm_operand view (c with contiguous rows): `[gemm] ...` otherwise.
struct GemmArgs {
  bool transa, transb;
  int m, n, k;  // N, M, K
  const void* A;
  int64_t lda, stride_a;
  const void* B;
  int64_t ldb, stride_b;
  void* C;
  int64_t ldc, stride_c;
  int batch;
};
GemmArgs plan_gemm(const Tensor& a, const Tensor& b, const Tensor& c);

/// The checks cuBLAS's int arguments need (sizes, leading dimensions; batch strides are 64-bit):
/// `[gemm] ... exceeds the int range` otherwise, and `[gemm] the cuda backend has no <dtype>
/// kernel yet` for a dtype cuBLAS is not asked for.
void check_gemm_call(const Tensor& a, const Tensor& b, const Tensor& c);

}  // namespace ember::cuda
