// The CUDA linalg family: the kCUDA backend's gemm through cublasGemmStridedBatchedEx (see
// Note [Row-major gemm through cuBLAS]), on the current stream, with PyTorch's defaults: float32
// computes in float32 without TF32 (CUBLAS_COMPUTE_32F, CUBLAS_DEFAULT_MATH), float16/bfloat16
// accumulate in float32, float64 in float64.
#include <cublas_v2.h>

#include <vector>

#include "backend/backend.h"
#include "backend/cuda/gemm_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

void check_cublas(cublasStatus_t status, const char* what) {
  EMBER_CHECK(status == CUBLAS_STATUS_SUCCESS, "gemm", "cuBLAS error: ",
              cublasGetStatusString(status), " (", int(status), ") in ", what);
}

// One handle per thread and device, as PyTorch's pool: a handle is not safe to share between
// threads, and creating one costs milliseconds. Each call binds it to the current stream.
class Handles {
 public:
  cublasHandle_t get(int device) {
    if (size_t(device) >= handles_.size()) handles_.resize(size_t(device) + 1, nullptr);
    cublasHandle_t& h = handles_[size_t(device)];
    if (!h) {
      check_cublas(cublasCreate(&h), "cublasCreate");
      check_cublas(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");  // no TF32
    }
    return h;
  }
  ~Handles() {  // at exit the runtime may be gone: nothing to report then
    for (cublasHandle_t h : handles_)
      if (h) (void)cublasDestroy(h);
  }

 private:
  std::vector<cublasHandle_t> handles_;
};

cudaDataType_t data_type(Dtype t) {
  switch (t) {
    case kFloat64: return CUDA_R_64F;
    case kFloat16: return CUDA_R_16F;
    case kBFloat16: return CUDA_R_16BF;
    default: return CUDA_R_32F;
  }
}

// x itself when cuBLAS can read its layout, else a contiguous copy.
Tensor operand(const Tensor& x) { return gemm_operand(x) ? x : x.contiguous(); }

void gemm(const Tensor& a_in, const Tensor& b_in, const Tensor& c, Scalar alpha, Scalar beta) {
  check_gemm_call(a_in, b_in, c);
  const int64_t B = c.sizes()[0], M = c.sizes()[1], N = c.sizes()[2], K = a_in.sizes()[2];
  if (B == 0 || M == 0 || N == 0) return;
  if (K == 0) {  // an empty sum: c = beta c, where beta == 0 ignores c (NaN there does not leak)
    if (beta.to_double() == 0) c.zero_();
    else c.copy_(c.mul(beta));
    return;
  }
  const Tensor a = operand(a_in), b = operand(b_in);
  // c needs contiguous rows: otherwise the product goes to a contiguous copy and back.
  const bool direct = gemm_operand(c, true).has_value();
  const Tensor out = direct ? c : c.contiguous();
  const GemmArgs g = plan_gemm(a, b, out);
  const bool is_double = c.dtype() == kFloat64;
  const double alpha_d = alpha.to_double(), beta_d = beta.to_double();
  const float alpha_f = float(alpha_d), beta_f = float(beta_d);
  const void* alpha_p = is_double ? static_cast<const void*>(&alpha_d) : &alpha_f;
  const void* beta_p = is_double ? static_cast<const void*>(&beta_d) : &beta_f;
  const cudaDataType_t type = data_type(c.dtype());
  const cublasComputeType_t compute = is_double ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
  const auto op = [](bool transpose) { return transpose ? CUBLAS_OP_T : CUBLAS_OP_N; };
  const int device = resolve_device(c.device(), "gemm");
  DeviceGuard guard(device, "gemm");
  static thread_local Handles handles;
  const cublasHandle_t h = handles.get(device);
  check_cublas(cublasSetStream(h, current_stream_handle(device)), "cublasSetStream");
  check_cublas(cublasGemmStridedBatchedEx(h, op(g.transa), op(g.transb), g.m, g.n, g.k, alpha_p,
                                          g.A, type, int(g.lda), g.stride_a, g.B, type,
                                          int(g.ldb), g.stride_b, beta_p, g.C, type, int(g.ldc),
                                          g.stride_c, g.batch, compute, CUBLAS_GEMM_DEFAULT),
               "cublasGemmStridedBatchedEx");
  if (!direct) c.copy_(out);
}

}  // namespace

void install_linalg_kernels(backend::Backend& b) { b.linalg.gemm = &gemm; }

}  // namespace ember::cuda
