// The CUDA elementwise kernels (src/backend/cuda/elementwise.cu) against the CPU's through the
// public ops of cuda/elementwise_cases.h, on contiguous, transposed, sliced and broadcast
// operands. (Every kernel of the cuda table is compared in every dtype without a device in
// cuda_emulation_test, which also runs these cases on a fake device with the emulated kernels.)
// Skips with "no CUDA device" on a machine without one.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <string>

#include "cuda/elementwise_cases.h"
#include "test_support.h"

namespace ember {
namespace {

// A result on the host. The output follows its operands' layout (Note [Output layout]), so a
// transposed one comes back through its contiguous transpose, which copies across devices move
// as they are (the device's strided copy, tests/cuda/copy_test.cpp, is not needed here).
Tensor to_host(const Tensor& t) {
  if (t.is_contiguous()) return t.cpu();
  EXPECT_TRUE(t.t().is_contiguous()) << "a layout this test does not expect";
  return t.t().cpu().t();
}

test::DeviceUnderTest gpu() {
  const Device device("cuda:0");
  return {device, [device](const Tensor& t) { return t.to(device); }, &to_host};
}

class CudaElementwise : public ::testing::TestWithParam<Dtype> {};

TEST_P(CudaElementwise, MatchesTheCpuOnContiguousOperands) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  test::expect_floating_ops_match_cpu(gpu(), GetParam(), [](const Tensor& t) { return t; },
                                      "contiguous");
}

TEST_P(CudaElementwise, MatchesTheCpuOnTransposedSlicedAndBroadcastOperands) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  test::expect_floating_ops_match_cpu(gpu(), GetParam(), [](const Tensor& t) { return t.t(); },
                                      "transposed");
  test::expect_floating_ops_match_cpu(
      gpu(), GetParam(), [](const Tensor& t) { return t.narrow(1, 3, 50); }, "sliced");
  // A row broadcast down the rows (stride 0), beside a full operand.
  test::expect_floating_ops_match_cpu(
      gpu(), GetParam(), [](const Tensor& t) { return t.select(0, 5).unsqueeze(0).expand({33, 65}); },
      "broadcast");
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaElementwise,
                         ::testing::Values(kFloat32, kFloat64, kFloat16, kBFloat16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

class CudaElementwiseIntegers : public ::testing::TestWithParam<Dtype> {};

TEST_P(CudaElementwiseIntegers, MatchTheCpuExactly) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  test::expect_integer_ops_match_cpu(gpu(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaElementwiseIntegers, ::testing::Values(kInt32, kInt64, kBool),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace ember
