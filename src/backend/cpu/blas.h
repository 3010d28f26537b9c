// The CPU matrix-product kernel behind every linalg op: OpenBLAS sgemm/dgemm (sgemv/dgemv for
// matrix-vector shapes) for float32/float64; for float16 and bfloat16 the float path with
// conversions, or oneDNN's bfloat16 GEMM where the CPU has bfloat16 dot products; a plain loop
// for integer dtypes.
#pragma once

#include <string>

#include "backend/cpu/cpu_features.h"
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

/// Makes OpenBLAS use ember's thread count (get_num_threads()) in the calling thread.
void sync_blas_threads();

}  // namespace ember::cpu
