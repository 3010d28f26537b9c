// The CUDA gemm through cuBLAS (src/backend/cuda/gemm.cpp) against the CPU's mm, bmm, matmul and
// addmm, on contiguous, transposed, strided and broadcast operands, in float32, float64, float16
// and bfloat16; float32 without TF32, as PyTorch's default. Skips with "no CUDA device" on a
// machine without one.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cuda/op_support.h"
#include "test_support.h"

namespace ember {
namespace {

using namespace cuda_test;

class CudaGemm : public ::testing::TestWithParam<Dtype> {};

TEST_P(CudaGemm, MatmulThroughCublasMatchesTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Dtype dtype = GetParam();
  const double tol = dtype == kFloat16 ? 5e-3 : dtype == kBFloat16 ? 3e-2 : tolerance(dtype) * 10;
  const Tensor a = values({4, 33, 65}, 0.3, dtype), b = values({4, 65, 17}, 0.7, dtype);
  const auto check = [&](const Tensor& want, const Tensor& got, const char* what) {
    EXPECT_EQ(got.device(), gpu);
    EXPECT_TRUE(allclose(host(got), host(want), tol, tol)) << what << " in " << dtype_name(dtype);
  };
  const Tensor ag = a.to(gpu), bg = b.to(gpu);
  check(a.bmm(b), ag.bmm(bg), "bmm");
  check(a.transpose(1, 2).contiguous().transpose(1, 2).bmm(b),
        ag.transpose(1, 2).contiguous().transpose(1, 2).bmm(bg), "bmm of a transposed a");
  check(a.select(0, 1).mm(b.select(0, 2)), ag.select(0, 1).mm(bg.select(0, 2)), "mm");
  check(a.select(0, 1).slice(1, 0, 65, 2).mm(b.select(0, 2).slice(0, 0, 65, 2)),
        ag.select(0, 1).slice(1, 0, 65, 2).mm(bg.select(0, 2).slice(0, 0, 65, 2)),
        "mm of strided slices");
  check(matmul(a, b.select(0, 0)), matmul(ag, bg.select(0, 0)), "matmul with a broadcast b");
  const Tensor bias = values({17}, 0.5, dtype);
  const AddmmOptions scaled{.beta = 0.5, .alpha = 2};
  check(addmm(bias, a.select(0, 3), b.select(0, 1), scaled),
        addmm(bias.to(gpu), ag.select(0, 3), bg.select(0, 1), scaled), "addmm");
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaGemm,
                         ::testing::Values(kFloat32, kFloat64, kFloat16, kBFloat16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

// TF32 keeps 10 mantissa bits: a 1024-long float32 dot product of values near 1 would be off by
// ~1e-3 relative; with TF32 off (PyTorch's default) it is float32's ~1e-6.
TEST(CudaGemmFloat32, Float32IsNotComputedInTf32) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Tensor a = 1 + values({64, 1024}, 0.01, kFloat64) * 1e-3;
  const Tensor b = 1 + values({1024, 64}, 0.03, kFloat64) * 1e-3;
  const Tensor want = a.mm(b);
  const Tensor got = a.to(kFloat32).to(gpu).mm(b.to(kFloat32).to(gpu));
  EXPECT_TRUE(allclose(host(got), want, 2e-6, 0));
}

TEST(CudaGemmErrors, IntegerDtypesHaveNoKernelYet) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Tensor i = ones({2, 2}, {.dtype = kInt64, .device = gpu});
  EXPECT_ERROR(i.mm(i), "the cuda backend has no int64 kernel yet");
}

}  // namespace
}  // namespace ember
