// The CPU matrix-product kernel behind every linalg op: OpenBLAS sgemm/dgemm (sgemv/dgemv for
// matrix-vector shapes) for float32/float64; for float16 and bfloat16 the float path with
// conversions, or oneDNN's bfloat16 GEMM where the CPU has bfloat16 dot products; a plain loop
// for integer dtypes.
#pragma once

#include <string>

#include "backend/cpu/cpu_features.h"
#include "ember/half.h"
#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember::cpu {

/// c = beta * c + alpha * (a @ b), batch by batch:
///   a (B, M, K), b (B, K, N), c (B, M, N), one dtype for all three.
/// a and b may have any strides (a stride-0 batch is a broadcast operand); a transposed matrix
/// is passed to BLAS as such, not copied. c is written and must not overlap a or b. beta == 0
/// ignores c's contents, so NaN in uninitialised memory does not leak into the result.
void gemm(const Tensor& a, const Tensor& b, const Tensor& c, Scalar alpha, Scalar beta);

/// How float16/bfloat16 products run (Note [Reduced-precision GEMM] in blas.cpp).
enum class ReducedGemmPath { kOnednn, kSbgemm, kConvert };
/// Which bfloat16 GEMM libraries this process can load.
struct Bf16GemmLibraries {
  bool onednn = false;  // libdnnl.so's dnnl_gemm_bf16bf16f32
  bool sbgemm = false;  // the loaded OpenBLAS's cblas_sbgemm
};
/// The path for `dtype` on a CPU with `cpu`'s features, running the CPU level that needs
/// `level`, given the libraries found.
ReducedGemmPath choose_reduced_gemm_path(Dtype dtype, const CpuFeatures& cpu,
                                         const CpuFeatures& level, Bf16GemmLibraries found);
/// The path this process uses for `dtype`, in words (for logs and benchmarks).
std::string reduced_gemm_path(Dtype dtype);
/// The path this process's bfloat16 products take (chosen once, at the first call).
ReducedGemmPath bf16_gemm_path();

/// Whether a bfloat16 convolution whose products reduce over `reduction` terms (C / groups * kH *
/// kW for forward and the stride-1 grad_input, batch * Ho * Wo for grad_weight) runs im2col in
/// bfloat16 and oneDNN's bfloat16 GEMM (Note [bfloat16 dot-product convolution] in
/// conv_reduced.cpp) rather than the float32 kernels on widened chunks, given the process's
/// bfloat16 GEMM path.
bool choose_bf16_dot_conv(Dtype dtype, ReducedGemmPath path, int64_t reduction);
/// The same for this process (its path is chosen once, at the first call).
bool bf16_dot_conv(int64_t reduction);

/// c (M, N), rows ldc apart, float32 = op(a) @ op(b) + beta * c with bfloat16 a, b in the
/// layouts of cblas (row-major, lda/ldb the row strides of the stored matrices). Only where
/// bf16_dot_conv is true (oneDNN loaded); inside a parallel region it runs on the calling thread.
void bf16_dot_gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const BFloat16* a,
                   int64_t lda, const BFloat16* b, int64_t ldb, float beta, float* c, int64_t ldc);

/// Makes OpenBLAS use ember's thread count (get_num_threads()) in the calling thread.
void sync_blas_threads();

}  // namespace ember::cpu
