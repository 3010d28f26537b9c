// The CUDA softmax and log_softmax kernels (src/backend/cuda/softmax.cu) against the CPU's along
// every dim, in float32, float64, float16 and bfloat16, on contiguous, transposed, sliced and
// broadcast inputs, with their backward (composite ops on the device). Skips with "no CUDA
// device" on a machine without one.
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

class CudaSoftmax : public ::testing::TestWithParam<Dtype> {};

TEST_P(CudaSoftmax, SoftmaxLogSoftmaxAndTheirBackwardMatchTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Dtype dtype = GetParam();
  const double tol = tolerance(dtype);
  const Tensor x = values({30, 50, 7}, 0.91, dtype) * 4;
  for (const auto& [name, layout] : layouts())
    for (int64_t dim : {0, 1, 2, -1})
      for (bool log : {false, true}) {
        const Tensor xc = layout(x).detach().requires_grad_();
        const Tensor xg = layout(x.to(gpu)).detach().requires_grad_();
        const Tensor yc = log ? xc.log_softmax(dim) : xc.softmax(dim);
        const Tensor yg = log ? xg.log_softmax(dim) : xg.softmax(dim);
        EXPECT_EQ(yg.dtype(), dtype);
        EXPECT_TRUE(allclose(host(yg), host(yc), tol, tol))
            << (log ? "log_softmax" : "softmax") << " in " << dtype_name(dtype) << " on " << name
            << " dim " << dim;
        const Tensor w = values(yc.sizes(), 0.13, dtype);
        (yc * w).sum().backward();
        (yg * w.to(gpu)).sum().backward();
        EXPECT_TRUE(allclose(host(xg.grad()), host(xc.grad()), tol * 4, tol * 4))
            << "backward of " << (log ? "log_softmax" : "softmax") << " in " << dtype_name(dtype)
            << " on " << name << " dim " << dim;
      }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaSoftmax,
                         ::testing::Values(kFloat32, kFloat64, kFloat16, kBFloat16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace ember
