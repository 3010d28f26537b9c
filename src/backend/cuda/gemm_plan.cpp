// See gemm_plan.h.
#include "backend/cuda/gemm_plan.h"

#include <algorithm>
#include <climits>
#include <cstdlib>

namespace ember::cuda {

std::optional<GemmOperand> gemm_operand(const Tensor& x, bool as_output) {
  const int64_t B = x.sizes()[0], R = x.sizes()[1], C = x.sizes()[2];
  const int64_t sb = x.strides()[0], sr = x.strides()[1], sc = x.strides()[2];
  const int64_t batch_stride = B == 1 ? 0 : sb;
  // A size-1 dim's stride is arbitrary: then the leading dimension is the smallest valid one.
  if (sc == 1 || C == 1) {
    const int64_t ld = R == 1 ? std::max<int64_t>(1, C) : sr;
    if (ld >= std::max<int64_t>(1, C)) return GemmOperand{false, ld, batch_stride};
  }
  if (as_output) return std::nullopt;
  if (sr == 1 || R == 1) {
    const int64_t ld = C == 1 ? std::max<int64_t>(1, R) : sc;
    if (ld >= std::max<int64_t>(1, R)) return GemmOperand{true, ld, batch_stride};
  }
  return std::nullopt;
}

void check_gemm_call(const Tensor& a, const Tensor& b, const Tensor& c) {
  const Dtype t = c.dtype();
  EMBER_CHECK(t == kFloat32 || t == kFloat64 || t == kFloat16 || t == kBFloat16, "gemm",
              "the cuda backend has no ", dtype_name(t), " kernel yet (gemm on ", c.device(),
              " takes float32, float64, float16 or bfloat16)");
  EMBER_CHECK(a.dtype() == t && b.dtype() == t, "gemm", "expected one dtype, got ", a.dtype(),
              ", ", b.dtype(), " and ", c.dtype());
  for (const Tensor* x : {&a, &b, &c})
    for (int64_t d = 0; d < 3; ++d)
      EMBER_CHECK(x->sizes()[d] <= INT_MAX && (d == 0 || std::abs(x->strides()[d]) <= INT_MAX),
                  "gemm",
                  "a size or stride of ", x->sizes(), " (strides ", x->strides(),
                  ") exceeds the int range cuBLAS takes");
}

GemmArgs plan_gemm(const Tensor& a, const Tensor& b, const Tensor& c) {
  const auto view = [](const Tensor& x, bool as_output, const char* name) {
    const auto v = gemm_operand(x, as_output);
    EMBER_CHECK(v.has_value(), "gemm", "no cuBLAS layout for ", name, " of shape ", x.sizes(),
                " and strides ", x.strides());
    return *v;
  };
  const GemmOperand av = view(a, false, "a"), bv = view(b, false, "b"), cv = view(c, true, "c");
  GemmArgs g{};
  g.transa = bv.transpose;
  g.transb = av.transpose;
  g.m = int(c.sizes()[2]);
  g.n = int(c.sizes()[1]);
  g.k = int(a.sizes()[2]);
  g.A = b.data_ptr();
  g.lda = bv.ld;
  g.stride_a = bv.batch_stride;
  g.B = a.data_ptr();
  g.ldb = av.ld;
  g.stride_b = av.batch_stride;
  g.C = c.data_ptr();
  g.ldc = cv.ld;
  g.stride_c = cv.batch_stride;
  g.batch = int(c.sizes()[0]);
  return g;
}

}  // namespace ember::cuda
