// The CUDA reductions (src/backend/cuda/reduce.cu, reduce.cpp) against the CPU's: sum, mean,
// amax and amin over all or some dims, in float32, float64, float16 and bfloat16 (float32
// accumulation for the half types), on contiguous, transposed, sliced and broadcast inputs, and
// large sums that split across blocks; the integer reductions (sum, prod, amax, amin, any, all,
// count_nonzero of int32, int64 and bool). Skips with "no CUDA device" on a machine without one.
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

class CudaReduce : public ::testing::TestWithParam<Dtype> {};

TEST_P(CudaReduce, SumMeanAmaxAminMatchTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Dtype dtype = GetParam();
  const double tol = tolerance(dtype);
  const Tensor x = values({30, 50, 7}, 0.37, dtype);
  const std::vector<std::vector<int64_t>> dim_sets = {{}, {1}, {0, 2}, {2}, {0}};
  for (const auto& [name, layout] : layouts())
    for (const auto& dims : dim_sets) {
      const Tensor c = layout(x), g = layout(x.to(gpu));
      const auto check = [&](const Tensor& want, const Tensor& got, const char* op) {
        EXPECT_EQ(got.device(), gpu);
        EXPECT_EQ(got.dtype(), want.dtype());
        EXPECT_TRUE(allclose(host(got), host(want), tol, tol))
            << op << " in " << dtype_name(dtype) << " on " << name << " over " << dims.size()
            << " dims";
      };
      check(c.sum(dims), g.sum(dims), "sum");
      check(c.mean(dims), g.mean(dims), "mean");
      check(c.amax(dims), g.amax(dims), "amax");
      check(c.amin(dims), g.amin(dims), "amin");
    }
}

// 16M ones into one value: the split launch (1024 blocks, then the combine) with float32
// accumulators, so the sum is exact (inf in float16, whose largest value is 65504, as on the CPU).
TEST_P(CudaReduce, LargeSumsSplitAcrossBlocks) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Dtype dtype = GetParam();
  const Tensor big = ones({int64_t(1) << 24}, {.dtype = dtype, .device = gpu});
  const Tensor s = big.sum();
  EXPECT_EQ(s.dtype(), dtype);
  EXPECT_TRUE(host(s).equal(host(full({}, double(int64_t(1) << 24)).to(dtype))))
      << dtype_name(dtype) << ": " << host(s).item<double>();
  EXPECT_EQ(big.mean().cpu().item<double>(), 1.0);
  const Tensor nan = big.narrow(0, 0, 100000).clone();
  nan.narrow(0, 77777, 1).fill_(NAN);
  EXPECT_TRUE(std::isnan(nan.amax().cpu().item<double>())) << "amax propagates NaN";
  EXPECT_TRUE(std::isnan(nan.amin().cpu().item<double>()));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaReduce,
                         ::testing::Values(kFloat32, kFloat64, kFloat16, kBFloat16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

// Integer reductions: exact, through the public ops (sums and products promote to int64).
TEST(CudaIntegerReduce, SumProdAmaxAminAnyAllMatchTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Tensor base = (arange(30 * 50 * 7, {.dtype = kInt64}) * 7919 % 2001 - 1000)
                          .reshape({30, 50, 7});
  for (const Dtype dtype : {kInt32, kInt64}) {
    const Tensor x = base.to(dtype), small = (base % 5 - 2).to(dtype).narrow(1, 0, 9);
    const Tensor xg = x.to(gpu), sg = small.to(gpu);
    for (const auto& [name, layout] : layouts())
      for (int64_t dim : {0, 1, 2}) {
        const std::string what = std::string(dtype_name(dtype)) + " " + name + " dim " +
                                 std::to_string(dim);
        if (layout(x).size(dim) == 0) continue;
        EXPECT_TRUE(layout(xg).sum(dim).cpu().equal(layout(x).sum(dim))) << what;
        EXPECT_TRUE(layout(xg).amax(dim).cpu().equal(layout(x).amax(dim))) << what;
        EXPECT_TRUE(layout(xg).amin(dim).cpu().equal(layout(x).amin(dim))) << what;
      }
    EXPECT_TRUE(sg.prod(1).cpu().equal(small.prod(1))) << dtype_name(dtype);
    EXPECT_EQ(xg.sum().item<int64_t>(), x.sum().item<int64_t>()) << dtype_name(dtype);
  }
  const Tensor b = base % 3 == 0, bg = b.to(gpu);
  EXPECT_TRUE(bg.any(1).cpu().equal(b.any(1)));
  EXPECT_TRUE(bg.all(2).cpu().equal(b.all(2)));
  EXPECT_TRUE(bg.sum(0).cpu().equal(b.sum(0)));
  EXPECT_TRUE(bg.count_nonzero(IntArrayRef{1}).cpu().equal(b.count_nonzero(IntArrayRef{1})));
}

}  // namespace
}  // namespace ember
