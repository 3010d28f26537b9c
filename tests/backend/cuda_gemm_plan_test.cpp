// The host half of the CUDA gemm (src/backend/cuda/gemm_plan.cpp), over CPU tensors so that it
// runs in every build: which layouts cuBLAS reads as they are ("N" rows, "T" columns, broadcast
// batches), which must be copied, and the arguments of cublasGemmStridedBatchedEx. The planned
// arguments are also run through a plain column-major reference of cuBLAS's definition and
// compared with the CPU's matmul, so Note [Row-major gemm through cuBLAS] is checked here.
#include "backend/cuda/gemm_plan.h"

#include <ember/ember.h>
#include <gtest/gtest.h>

#include <climits>

#include "test_support.h"

namespace ember::cuda {
namespace {

// cublasGemmStridedBatchedEx's definition on float64 data: C = alpha op(A) op(B) + beta C,
// column-major, op(X) = X or X^T, beta == 0 ignoring C.
void reference_gemm(const GemmArgs& g, double alpha, double beta) {
  const auto* A = static_cast<const double*>(g.A);
  const auto* B = static_cast<const double*>(g.B);
  auto* C = static_cast<double*>(g.C);
  for (int p = 0; p < g.batch; ++p)
    for (int i = 0; i < g.m; ++i)
      for (int j = 0; j < g.n; ++j) {
        double sum = 0;
        for (int l = 0; l < g.k; ++l) {
          const double a = g.transa ? A[p * g.stride_a + l + i * g.lda]
                                    : A[p * g.stride_a + i + l * g.lda];
          const double b = g.transb ? B[p * g.stride_b + j + l * g.ldb]
                                    : B[p * g.stride_b + l + j * g.ldb];
          sum += a * b;
        }
        double& c = C[p * g.stride_c + i + j * g.ldc];
        c = alpha * sum + (beta == 0 ? 0 : beta * c);
      }
}

Tensor values(std::vector<int64_t> sizes, double scale) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return (arange(n, {.dtype = kFloat64}).reshape(sizes) * scale).cos();
}

TEST(CudaGemmPlan, RowsOrColumnsContiguousAreReadAsTheyAre) {
  const auto rows = gemm_operand(values({2, 3, 4}, 1));
  ASSERT_TRUE(rows);
  EXPECT_FALSE(rows->transpose);
  EXPECT_EQ(rows->ld, 4);
  EXPECT_EQ(rows->batch_stride, 12);
  const auto cols = gemm_operand(values({2, 4, 3}, 1).transpose(1, 2));
  ASSERT_TRUE(cols);
  EXPECT_TRUE(cols->transpose);
  EXPECT_EQ(cols->ld, 3);
  const auto padded = gemm_operand(values({2, 3, 8}, 1).narrow(2, 0, 4));  // ld 8 > 4 columns
  ASSERT_TRUE(padded);
  EXPECT_EQ(padded->ld, 8);
  const auto broadcast = gemm_operand(values({1, 3, 4}, 1).expand({5, 3, 4}));
  ASSERT_TRUE(broadcast);
  EXPECT_EQ(broadcast->batch_stride, 0);
  EXPECT_FALSE(gemm_operand(values({2, 3, 8}, 1).narrow(2, 0, 4).transpose(1, 2), true))
      << "an output needs contiguous rows";
  EXPECT_FALSE(gemm_operand(values({2, 6, 8}, 1).slice(1, 0, 6, 2).slice(2, 0, 8, 2)))
      << "neither rows nor columns contiguous: copied";
  const auto single = gemm_operand(values({2, 1, 5}, 1).slice(2, 0, 5, 1));
  ASSERT_TRUE(single);
  EXPECT_EQ(single->ld, 5);  // one row: its stride does not matter
}

// Layouts of a and b (and broadcast batches), each planned and run through cuBLAS's definition:
// the CPU's baddbmm's numbers, beta included.
TEST(CudaGemmPlan, ThePlannedArgumentsComputeTheCpusProduct) {
  const int64_t B = 3, M = 5, K = 4, N = 6;
  const std::pair<const char*, Tensor> as[] = {
      {"contiguous", values({B, M, K}, 0.3)},
      {"transposed", values({B, K, M}, 0.3).transpose(1, 2)},
      {"padded", values({B, M, K + 3}, 0.3).narrow(2, 1, K)},
      {"broadcast", values({1, M, K}, 0.3).expand({B, M, K})},
  };
  const std::pair<const char*, Tensor> bs[] = {
      {"contiguous", values({B, K, N}, 0.7)},
      {"transposed", values({B, N, K}, 0.7).transpose(1, 2)},
      {"broadcast", values({1, N, K}, 0.7).transpose(1, 2).expand({B, K, N})},
  };
  for (const auto& [an, a] : as)
    for (const auto& [bn, b] : bs)
      for (double beta : {0.0, 0.5}) {
        const Tensor c0 = values({B, M, N}, 0.11);
        const Tensor want = c0 * beta + matmul(a, b) * 2.0;
        Tensor c = beta == 0 ? full({B, M, N}, NAN, {.dtype = kFloat64}) : c0.clone();
        reference_gemm(plan_gemm(a, b, c), 2.0, beta);
        EXPECT_TRUE(allclose(c, want, 1e-12, 1e-12)) << "a " << an << ", b " << bn << ", beta "
                                                     << beta;
      }
}

TEST(CudaGemmPlan, ErrorsNameTheProblem) {
  const Tensor i = ones({1, 2, 2}, {.dtype = kInt64});
  EXPECT_ERROR(check_gemm_call(i, i, i), "[gemm] the cuda backend has no int64 kernel yet");
  const Tensor f = ones({1, 2, 2}), d = ones({1, 2, 2}, {.dtype = kFloat64});
  EXPECT_ERROR(check_gemm_call(f, d, f),
               "[gemm] expected one dtype, got torch.float32, torch.float64");
  const Tensor strided = values({1, 6, 8}, 1).slice(1, 0, 6, 2).slice(2, 0, 8, 2);
  EXPECT_ERROR(plan_gemm(strided, ones({1, 4, 2}, {.dtype = kFloat64}),
                         empty({1, 3, 2}, {.dtype = kFloat64})),
               "[gemm] no cuBLAS layout for a of shape");
}

}  // namespace
}  // namespace ember::cuda
