// The CUDA pooling kernels (src/backend/cuda/pool.cu) and their backward against the CPU's
// through F::max_pool2d (strides, padding, dilation), F::avg_pool2d, F::adaptive_avg_pool2d and
// F::adaptive_max_pool2d, in float32, float64, float16 and bfloat16. Skips with "no CUDA device"
// on a machine without one.
#include <ember/ember.h>
#include <ember/nn/functional/conv.h>
#include <gtest/gtest.h>

#include <functional>
#include <iterator>
#include <string>

#include "cuda/op_support.h"
#include "test_support.h"

namespace ember {
namespace {

using namespace cuda_test;
namespace F = nn::functional;

class CudaPool : public ::testing::TestWithParam<Dtype> {};

TEST_P(CudaPool, MaxPool2dAndItsBackwardMatchTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Dtype dtype = GetParam();
  const Tensor x = values({4, 3, 28, 28}, 0.91, dtype);
  for (const int64_t padding : {0, 1})
    for (const int64_t dilation : {1, 2}) {
      const F::MaxPoolFuncOptions o{.stride = 2, .padding = padding, .dilation = dilation};
      const Tensor xc = x.detach().requires_grad_(), xg = x.to(gpu).detach().requires_grad_();
      const Tensor yc = F::max_pool2d(xc, 3, o), yg = F::max_pool2d(xg, 3, o);
      const std::string what = std::string(dtype_name(dtype)) + " padding " +
                               std::to_string(padding) + " dilation " + std::to_string(dilation);
      EXPECT_TRUE(host(yg).equal(host(yc))) << what;
      const Tensor w = values(yc.sizes(), 0.13, dtype);
      (yc * w).sum().backward();
      (yg * w.to(gpu)).sum().backward();
      EXPECT_TRUE(allclose(host(xg.grad()), host(xc.grad()), tolerance(dtype), tolerance(dtype)))
          << "backward, " << what;
    }
}

TEST_P(CudaPool, AveragePoolsAndTheirBackwardMatchTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Dtype dtype = GetParam();
  const Tensor x = values({4, 3, 28, 28}, 0.91, dtype);
  const std::function<Tensor(const Tensor&)> pools[] = {
      [](const Tensor& t) { return F::avg_pool2d(t, 3, {.stride = 2, .padding = 1}); },
      [](const Tensor& t) {
        return F::avg_pool2d(t, 3, {.stride = 2, .padding = 1, .count_include_pad = false});
      },
      [](const Tensor& t) {
        return F::adaptive_avg_pool2d(t, {5, 7});
      },
      [](const Tensor& t) { return F::adaptive_avg_pool2d(t, 1); },
      [](const Tensor& t) {
        return F::adaptive_max_pool2d(t, {5, 7});
      },
  };
  for (size_t k = 0; k < std::size(pools); ++k) {
    const Tensor xc = x.detach().requires_grad_(), xg = x.to(gpu).detach().requires_grad_();
    const Tensor yc = pools[k](xc), yg = pools[k](xg);
    const std::string what = std::string(dtype_name(dtype)) + " pool " + std::to_string(k);
    EXPECT_TRUE(allclose(host(yg), host(yc), tolerance(dtype), tolerance(dtype))) << what;
    const Tensor w = values(yc.sizes(), 0.13, dtype);
    (yc * w).sum().backward();
    (yg * w.to(gpu)).sum().backward();
    EXPECT_TRUE(allclose(host(xg.grad()), host(xc.grad()), tolerance(dtype), tolerance(dtype)))
        << "backward, " << what;
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaPool,
                         ::testing::Values(kFloat32, kFloat64, kFloat16, kBFloat16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace ember
