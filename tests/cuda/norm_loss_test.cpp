// The CUDA batch_norm (src/backend/cuda/batch_norm.cu), layer_norm, rms_norm, group_norm
// (norm.cu) and class-index loss kernels (loss.cu) against the CPU's through the public ops,
// forward and backward: the norms in float32, float64, float16 and bfloat16 with and without weight
// and bias, cross_entropy and nll_loss with weights, ignore_index, label smoothing and every
// reduction; and the CPU's error for a target out of range. Skips with "no CUDA device" on a
// machine without one.
#include <ember/ember.h>
#include <ember/nn/functional/layers.h>
#include <ember/nn/functional/loss.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuda/op_support.h"
#include "test_support.h"

namespace ember {
namespace {

using namespace cuda_test;
namespace F = nn::functional;

class CudaNormLoss : public ::testing::TestWithParam<Dtype> {};

/// Gradients of sum(y * w) for a CPU and a CUDA leaf, compared after f ran on both.
template <class Op>
void expect_same(const Tensor& x, const Op& op, double tol, const std::string& what) {
  const Tensor xc = x.detach().requires_grad_(), xg = x.to(gpu).detach().requires_grad_();
  const Tensor yc = op(xc, kCPU), yg = op(xg, gpu);
  EXPECT_TRUE(allclose(host(yg), host(yc), tol, tol)) << what;
  const Tensor w = values(yc.sizes(), 0.13, yc.dtype());
  (yc * w).sum().backward();
  (yg * w.to(gpu)).sum().backward();
  EXPECT_TRUE(allclose(host(xg.grad()), host(xc.grad()), tol * 4, tol * 4))
      << "backward of " << what;
}

TEST_P(CudaNormLoss, LayerNormAndRmsNormMatchTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Dtype dtype = GetParam(), cd = dtype == kFloat64 ? kFloat64 : kFloat32;
  const Tensor x = values({30, 50, 7}, 0.91, dtype) * 4 + 1;
  const Tensor w = values({50, 7}, 0.3, cd) + 1.5, b = values({50, 7}, 0.7, cd);
  for (const bool affine : {false, true}) {
    const std::string what = std::string(dtype_name(dtype)) + (affine ? " affine" : "");
    expect_same(
        x,
        [&](const Tensor& t, Device d) {
          return F::layer_norm(
              t, {50, 7},
              {.weight = affine ? w.to(d) : Tensor(), .bias = affine ? b.to(d) : Tensor()});
        },
        tolerance(dtype), "layer_norm " + what);
    expect_same(
        x,
        [&](const Tensor& t, Device d) {
          return F::rms_norm(t, {7}, {.weight = affine ? w.select(0, 0).to(d) : Tensor()});
        },
        tolerance(dtype), "rms_norm " + what);
  }
}

TEST_P(CudaNormLoss, GroupNormMatchesTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Dtype dtype = GetParam(), cd = dtype == kFloat64 ? kFloat64 : kFloat32;
  const Tensor x = values({8, 6, 5, 7}, 0.91, dtype) * 4 + 1;
  const Tensor w = values({6}, 0.3, cd) + 1.5, b = values({6}, 0.7, cd);
  for (const int64_t groups : {1, 2, 3, 6})
    expect_same(
        x,
        [&](const Tensor& t, Device d) {
          return F::group_norm(t, groups, {.weight = w.to(d), .bias = b.to(d)});
        },
        tolerance(dtype),
        std::string(dtype_name(dtype)) + " group_norm in " + std::to_string(groups));
}

// Training (batch statistics, the running ones updated) and eval, planes of 35 (the fused
// backward) and of 1 (the composite one).
TEST_P(CudaNormLoss, BatchNormMatchesTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Dtype dtype = GetParam(), cd = dtype == kFloat64 ? kFloat64 : kFloat32;
  const Tensor w = values({6}, 0.3, cd) + 1.5, b = values({6}, 0.7, cd);
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{8, 6, 5, 7}, {40, 6}})
    for (const bool training : {true, false}) {
      const Tensor x = values(shape, 0.91, dtype) * 4 + 1;
      Tensor mean[2], var[2];  // cpu, cuda
      for (int k = 0; k < 2; ++k) {
        mean[k] = values({6}, 0.2, cd).to(k ? gpu : Device(kCPU));
        var[k] = (values({6}, 0.4, cd).abs() + 0.5).to(k ? gpu : Device(kCPU));
      }
      expect_same(
          x,
          [&](const Tensor& t, Device d) {
            const int k = d.is_cuda() ? 1 : 0;
            return F::batch_norm(t, mean[k], var[k],
                                 {.weight = w.to(d), .bias = b.to(d), .training = training});
          },
          tolerance(dtype), std::string(dtype_name(dtype)) + (training ? " training" : " eval"));
      EXPECT_TRUE(allclose(host(mean[1]), host(mean[0]), tolerance(dtype), tolerance(dtype)));
      EXPECT_TRUE(allclose(host(var[1]), host(var[0]), tolerance(dtype), tolerance(dtype)));
    }
}

TEST_P(CudaNormLoss, CrossEntropyAndNllLossMatchTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Dtype dtype = GetParam();
  const Tensor x = values({30, 11, 7}, 0.91, dtype) * 4;
  const Tensor target = arange(30 * 7, {.dtype = kInt64}).reshape({30, 7}) * 5 % 11;
  const Tensor weight = values({11}, 0.4, dtype).abs() + 0.2;
  for (const char* reduction : {"mean", "sum", "none"})
    for (const bool weighted : {false, true}) {
      const std::string what =
          std::string(dtype_name(dtype)) + " " + reduction + (weighted ? " weighted" : "");
      expect_same(
          x,
          [&](const Tensor& t, Device d) {
            return F::cross_entropy(t, target.to(d),
                                    {.weight = weighted ? weight.to(d) : Tensor(),
                                     .ignore_index = 3,
                                     .reduction = reduction,
                                     .label_smoothing = 0.1});
          },
          tolerance(dtype) * 4, "cross_entropy " + what);
      expect_same(
          x.log_softmax(1),
          [&](const Tensor& t, Device d) {
            return F::nll_loss(
                t, target.to(d),
                {.weight = weighted ? weight.to(d) : Tensor(), .reduction = reduction});
          },
          tolerance(dtype) * 4, "nll_loss " + what);
    }
  const Tensor bad = full({30, 7}, 11, {.dtype = kInt64}).to(gpu);
  EXPECT_ERROR(F::cross_entropy(x.to(gpu), bad), "Target 11 is out of bounds.");
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaNormLoss,
                         ::testing::Values(kFloat32, kFloat64, kFloat16, kBFloat16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace ember
