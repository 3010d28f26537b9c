// The CUDA cumsum and cumprod kernels (src/backend/cuda/scan.cu) against the CPU's along every dim
// of contiguous, transposed and sliced inputs, in float32, float64, float16, bfloat16 and int64:
// the same accumulation, so the same bits. Skips with "no CUDA device" on a machine without one.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <string>

#include "cuda/op_support.h"
#include "test_support.h"

namespace ember {
namespace {

using namespace cuda_test;

class CudaScan : public ::testing::TestWithParam<Dtype> {};

TEST_P(CudaScan, CumsumAndCumprodMatchTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Dtype dtype = GetParam();
  const Tensor x = (values({30, 50, 7}, 0.91, kFloat64) * 0.3 + 1).to(dtype);
  for (const auto& [name, layout] : layouts())
    for (int64_t dim : {0, 1, 2}) {
      const Tensor xc = layout(x), xg = layout(x.to(gpu));
      const std::string what =
          std::string(dtype_name(dtype)) + " on " + name + " dim " + std::to_string(dim);
      EXPECT_TRUE(xg.cumsum(dim).cpu().equal(xc.cumsum(dim))) << what;
      EXPECT_TRUE(xg.cumprod(dim).cpu().equal(xc.cumprod(dim))) << what;
    }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaScan,
                         ::testing::Values(kFloat32, kFloat64, kFloat16, kBFloat16, kInt64),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace ember
