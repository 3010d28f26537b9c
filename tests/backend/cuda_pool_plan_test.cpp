// The CUDA pooling kernels (src/backend/cuda/pool_body.cuh) and max pooling's backward (a
// scatter_add, gather_body.cuh) run by their CPU emulation over launches planned as the device's
// are (pool_plan.cpp), against the CPU backend's kernels, without a GPU: windows with strides,
// padding, dilation and partial windows at the edges, NaNs (the last one wins), every floating
// dtype; values and indices bit for bit, and the backward's sums over overlapping windows; the
// adaptive max pool; the average pools (fixed and adaptive windows) forward and backward, bit for
// bit.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <utility>

#include "backend/cuda/emulation.h"
#include "backend/cuda/pool_plan.h"
#include "test_support.h"

namespace ember::cuda {
namespace {

using Params = backend::Pool2dParams;

const backend::PoolKernels& cpu() { return backend::backend_for(kCPU)->pool; }

/// PyTorch's output size of a window over n (no ceil mode).
int64_t out_size(int64_t n, const Params& p, int k) {
  return (n + 2 * p.padding[k] - p.dilation[k] * (p.kernel[k] - 1) - 1) / p.stride[k] + 1;
}

const Params kParams[] = {
    {{2, 2}, {2, 2}, {0, 0}, {1, 1}},  // the CPU's 2x2 fast path
    {{3, 3}, {2, 2}, {1, 1}, {1, 1}},  // padding: windows cut at the edges
    {{3, 2}, {1, 2}, {1, 0}, {2, 1}},  // dilation, overlapping rows
};

TEST(CudaPoolPlan, MaxPoolAndItsBackwardMatchTheCpu) {
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16})
    for (const Params& p : kParams) {
      const int64_t P = 3, H = 11, W = 9, Ho = out_size(H, p, 0), Wo = out_size(W, p, 1);
      // Five levels, so windows hold ties (the first maximum keeps its index); a NaN in plane 1.
      const Tensor input =
          ((arange(P * H * W, {.dtype = kInt64}) * 7 % 5) - 2).to(dtype).reshape({P, H, W});
      input.select(0, 1).select(0, 4).select(0, 3).fill_(NAN);
      auto outputs = [&] {
        return std::array<Tensor, 2>{empty({P, Ho, Wo}, {.dtype = dtype}),
                                     empty({P, Ho, Wo}, {.dtype = kInt64})};
      };
      const auto [want, want_idx] = outputs();
      cpu().max_pool2d(input, want, want_idx, p);
      const auto [got, got_idx] = outputs();
      kernels::emulate_max_pool(plan_max_pool_launch(input, got, got_idx, p));
      const std::string what = std::string(dtype_name(dtype)) + " kernel " +
                               std::to_string(p.kernel[0]) + "x" + std::to_string(p.kernel[1]);
      EXPECT_TRUE(allclose(got, want, 0, 0, /*equal_nan=*/true)) << what;
      EXPECT_TRUE(got_idx.equal(want_idx)) << what;

      // Integer gradients: sums over overlapping windows are exact in any order.
      const Tensor grad =
          ((arange(P * Ho * Wo, {.dtype = kInt64}) % 5) - 2).to(dtype).reshape({P, Ho, Wo});
      const Tensor gi_want = empty({P, H, W}, {.dtype = dtype});
      cpu().max_pool_backward(grad, want_idx, gi_want);
      const Tensor gi = zeros({P, H, W}, {.dtype = dtype});
      int64_t bad[2] = {0, 0};
      kernels::emulate_gather(plan_max_pool_backward_launch(grad, want_idx, gi, bad));
      EXPECT_EQ(bad[0], 0);
      EXPECT_TRUE(gi.equal(gi_want)) << what << " backward";
    }
}

// Adaptive windows that do and do not divide the input, ties and a NaN: values and indices.
TEST(CudaPoolPlan, AdaptiveMaxPoolMatchesTheCpu) {
  for (const Dtype dtype : {kFloat32, kFloat16})
    for (const auto& size : {std::pair<int64_t, int64_t>{4, 3}, {11, 9}, {1, 1}, {5, 7}}) {
      const int64_t Ho = size.first, Wo = size.second;  // captured below: no structured binding
      const Tensor input =
          ((arange(3 * 11 * 9, {.dtype = kInt64}) * 7 % 5) - 2).to(dtype).reshape({3, 11, 9});
      input.select(0, 2).select(0, 5).select(0, 5).fill_(NAN);
      auto outputs = [&] {
        return std::array<Tensor, 2>{empty({3, Ho, Wo}, {.dtype = dtype}),
                                     empty({3, Ho, Wo}, {.dtype = kInt64})};
      };
      const auto [want, want_idx] = outputs();
      cpu().adaptive_max_pool2d(input, want, want_idx);
      const auto [got, got_idx] = outputs();
      kernels::emulate_max_pool(plan_max_pool_launch(input, got, got_idx, {}, true));
      const std::string what =
          std::string(dtype_name(dtype)) + " " + std::to_string(Ho) + "x" + std::to_string(Wo);
      EXPECT_TRUE(allclose(got, want, 0, 0, /*equal_nan=*/true)) << what;
      EXPECT_TRUE(got_idx.equal(want_idx)) << what;
    }
}

// avg_pool2d with and without count_include_pad and divisor_override, and adaptive_avg_pool2d to
// sizes that do and do not divide the input, forward and backward: the same sums in the same
// order as the CPU's kernels, so the same bits.
TEST(CudaPoolPlan, AveragePoolsAndTheirBackwardMatchTheCpu) {
  struct Avg {
    Params p;
    bool count_include_pad;
    int64_t divisor;
  };
  const Avg avgs[] = {
      {kParams[0], true, 0}, {kParams[1], true, 0}, {kParams[1], false, 0}, {kParams[1], false, 5}};
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    const int64_t P = 3, H = 11, W = 9;
    const Tensor input =
        ((arange(P * H * W, {.dtype = kFloat64}) * 0.37).sin() * 3).to(dtype).reshape({P, H, W});
    auto check = [&](const Params& p, bool cip, int64_t divisor, bool adaptive, int64_t Ho,
                     int64_t Wo, const std::string& what) {
      const Tensor want = empty({P, Ho, Wo}, {.dtype = dtype}), got = empty_like(want);
      if (adaptive)
        cpu().adaptive_avg_pool2d(input, want);
      else
        cpu().avg_pool2d(input, want, p, cip, divisor);
      kernels::emulate_avg_pool(plan_avg_pool_launch(input, got, p, cip, divisor, adaptive, false));
      EXPECT_TRUE(got.equal(want)) << what;
      const Tensor grad =
          ((arange(P * Ho * Wo, {.dtype = kFloat64}) * 0.71).cos()).to(dtype).reshape({P, Ho, Wo});
      const Tensor gi_want = empty_like(input), gi = empty_like(input);
      if (adaptive)
        cpu().adaptive_avg_pool2d_backward(grad, gi_want);
      else
        cpu().avg_pool2d_backward(grad, gi_want, p, cip, divisor);
      kernels::emulate_avg_pool(plan_avg_pool_launch(grad, gi, p, cip, divisor, adaptive, true));
      EXPECT_TRUE(gi.equal(gi_want)) << what << " backward";
    };
    for (const Avg& a : avgs) {
      const int64_t Ho = (H + 2 * a.p.padding[0] - a.p.kernel[0]) / a.p.stride[0] + 1;
      const int64_t Wo = (W + 2 * a.p.padding[1] - a.p.kernel[1]) / a.p.stride[1] + 1;
      check(a.p, a.count_include_pad, a.divisor, false, Ho, Wo,
            std::string(dtype_name(dtype)) + " avg kernel " + std::to_string(a.p.kernel[0]) +
                (a.count_include_pad ? " with pad" : "") + " divisor " + std::to_string(a.divisor));
    }
    for (const auto& [Ho, Wo] : {std::pair<int64_t, int64_t>{4, 3}, {11, 9}, {1, 1}, {5, 7}})
      check({}, false, 0, true, Ho, Wo,
            std::string(dtype_name(dtype)) + " adaptive " + std::to_string(Ho) + "x" +
                std::to_string(Wo));
  }
}

TEST(CudaPoolPlan, AnIndexOutsideThePlaneIsRecorded) {
  const Tensor grad = ones({1, 2, 2}), gi = zeros({1, 3, 3});
  const Tensor idx = tensor({0, 4, 9, 8}, kInt64).reshape({1, 2, 2});
  int64_t bad[2] = {0, 0};
  kernels::emulate_gather(plan_max_pool_backward_launch(grad, idx, gi, bad));
  EXPECT_EQ(bad[0], 1);
  EXPECT_EQ(bad[1], 9);
  EXPECT_EQ(gi.sum().item<float>(), 3.0f);  // the others still added
}

}  // namespace
}  // namespace ember::cuda
