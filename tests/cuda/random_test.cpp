// The CUDA random fills' distributions on the device (src/backend/cuda/random.cu, multinomial.cu):
// exponential_'s mean and positivity, and multinomial with replacement's frequencies, zero
// buckets and its CPU errors. The streams themselves are checked word for word by the emulated
// kernels (tests/backend/cuda_elementwise_plan_test.cpp). Skips with "no CUDA device" on a
// machine without one.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cmath>

#include "cuda/op_support.h"
#include "test_support.h"

namespace ember {
namespace {

using namespace cuda_test;

TEST(CudaRandom, ExponentialHasItsMeanAndNoZeros) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    Tensor x = empty({1 << 20}, {.dtype = dtype, .device = gpu});
    exponential_(x, 2.5);
    const Tensor h = host(x);
    EXPECT_GT(h.min().item<double>(), 0) << dtype_name(dtype);
    EXPECT_NEAR(h.mean().item<double>(), 0.4, 0.01) << dtype_name(dtype);
  }
}

TEST(CudaRandom, MultinomialWithReplacementFollowsTheProbabilities) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Tensor probs = tensor({{0.1, 0.0, 0.6, 0.3}, {0.0, 0.0, 1.0, 0.0}}).to(gpu);
  const Tensor s = multinomial(probs, 50000, /*replacement=*/true).cpu();
  EXPECT_NEAR((s[0] == 0).to(kFloat64).mean().item<double>(), 0.1, 0.01);
  EXPECT_NEAR((s[0] == 2).to(kFloat64).mean().item<double>(), 0.6, 0.01);
  EXPECT_EQ((s[0] == 1).sum().item<int64_t>(), 0);
  EXPECT_TRUE((s[1] == 2).all().item<bool>());
  EXPECT_ERROR(multinomial(tensor({{1.0, -1.0}}).to(gpu), 4, true),
               "invalid multinomial distribution (encountering probability entry < 0)");
  EXPECT_ERROR(multinomial(tensor({{0.0, 0.0}}).to(gpu), 4, true),
               "invalid multinomial distribution (sum of probabilities <= 0)");
}

}  // namespace
}  // namespace ember
