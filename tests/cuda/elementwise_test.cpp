// The CUDA elementwise kernels (src/backend/cuda/elementwise.cu) against the CPU's, in float32,
// float64, float16 and bfloat16, on contiguous, transposed, sliced and broadcast operands.
// Skips with "no CUDA device" on a machine without one.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "test_support.h"

namespace ember {
namespace {

struct Case {
  const char* name;
  std::function<Tensor(const Tensor&, const Tensor&)> f;  // (any values, positive values)
};

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"neg", [](const Tensor& a, const Tensor&) { return neg(a); }},
      {"abs", [](const Tensor& a, const Tensor&) { return abs(a); }},
      {"sqrt", [](const Tensor&, const Tensor& p) { return sqrt(p); }},
      {"rsqrt", [](const Tensor&, const Tensor& p) { return rsqrt(p); }},
      {"square", [](const Tensor& a, const Tensor&) { return square(a); }},
      {"reciprocal", [](const Tensor&, const Tensor& p) { return reciprocal(p); }},
      {"exp", [](const Tensor& a, const Tensor&) { return exp(a); }},
      {"log", [](const Tensor&, const Tensor& p) { return log(p); }},
      {"sin", [](const Tensor& a, const Tensor&) { return sin(a); }},
      {"cos", [](const Tensor& a, const Tensor&) { return cos(a); }},
      {"tanh", [](const Tensor& a, const Tensor&) { return tanh(a); }},
      {"sigmoid", [](const Tensor& a, const Tensor&) { return sigmoid(a); }},
      {"relu", [](const Tensor& a, const Tensor&) { return relu(a); }},
      {"add", [](const Tensor& a, const Tensor& p) { return add(a, p, 2); }},
      {"sub", [](const Tensor& a, const Tensor& p) { return sub(a, p, 0.5); }},
      {"mul", [](const Tensor& a, const Tensor& p) { return mul(a, p); }},
      {"div", [](const Tensor& a, const Tensor& p) { return div(a, p); }},
      {"maximum", [](const Tensor& a, const Tensor& p) { return maximum(a, p); }},
      {"minimum", [](const Tensor& a, const Tensor& p) { return minimum(a, p); }},
  };
  return all;
}

// (33, 65) values in [-3, 3) and in [0.5, 3.5), deterministic, in `dtype`.
Tensor any_values(Dtype dtype) {
  return (arange(33 * 65, {.dtype = kFloat64}).reshape({33, 65}) * (6.0 / (33 * 65)) - 3).to(dtype);
}
Tensor positive_values(Dtype dtype) {
  return (arange(33 * 65, {.dtype = kFloat64}).reshape({33, 65}).flip({1}) * (3.0 / (33 * 65)) +
          0.5).to(dtype);
}

// A result on the host. The output follows its operands' layout (Note [Output layout]), so a
// transposed one comes back through its contiguous transpose, which copies across devices move
// as they are (the device's strided copy, tests/cuda/copy_test.cpp, is not needed here).
Tensor to_host(const Tensor& t) {
  if (t.is_contiguous()) return t.cpu();
  EXPECT_TRUE(t.t().is_contiguous()) << "a layout this test does not expect";
  return t.t().cpu().t();
}

void expect_matches_cpu(Dtype dtype, const std::function<Tensor(const Tensor&)>& layout,
                        const char* layout_name) {
  const Device gpu("cuda:0");
  const double rtol = dtype == kFloat64   ? 1e-12
                      : dtype == kFloat32 ? 1e-5
                      : dtype == kFloat16 ? 2e-3
                                          : 1.6e-2;
  const Tensor a = any_values(dtype), p = positive_values(dtype);
  for (const Case& c : cases()) {
    const Tensor want = c.f(layout(a), layout(p));
    const Tensor got = c.f(layout(a.to(gpu)), layout(p.to(gpu)));
    ASSERT_EQ(got.device(), gpu) << c.name;
    ASSERT_EQ(got.dtype(), want.dtype()) << c.name;
    ASSERT_EQ(got.sizes(), want.sizes()) << c.name;
    EXPECT_TRUE(allclose(to_host(got).to(kFloat64), want.to(kFloat64), rtol, rtol * 1e-2))
        << c.name << " in " << dtype << " on " << layout_name << " operands";
  }
}

class CudaElementwise : public ::testing::TestWithParam<Dtype> {};

TEST_P(CudaElementwise, MatchesTheCpuOnContiguousOperands) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  expect_matches_cpu(GetParam(), [](const Tensor& t) { return t; }, "contiguous");
}

TEST_P(CudaElementwise, MatchesTheCpuOnTransposedSlicedAndBroadcastOperands) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  expect_matches_cpu(GetParam(), [](const Tensor& t) { return t.t(); }, "transposed");
  expect_matches_cpu(GetParam(), [](const Tensor& t) { return t.narrow(1, 3, 50); }, "sliced");
  // A row broadcast down the rows (stride 0), beside a full operand.
  expect_matches_cpu(
      GetParam(), [](const Tensor& t) { return t.select(0, 5).unsqueeze(0).expand({33, 65}); },
      "broadcast");
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaElementwise,
                         ::testing::Values(kFloat32, kFloat64, kFloat16, kBFloat16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

TEST(CudaElementwiseErrors, AnIntegerDtypeHasNoKernelYet) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Tensor i = arange(4).to(Device("cuda:0"));
  EXPECT_ERROR(i + i, "[add] the cuda backend has no int64 kernel yet");
}

}  // namespace
}  // namespace ember
