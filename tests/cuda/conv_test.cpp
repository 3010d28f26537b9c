// The CUDA convolution (src/backend/cuda/conv.cpp: cuDNN, and the own im2col/col2im kernels around
// the cuBLAS gemm with cuDNN switched off) against the CPU's and each other through F::conv2d and
// F::conv_transpose2d, forward and backward (strides, padding, dilation, groups, output_padding,
// bias), and the CUDA creation kernels
// (creation.cu) through arange, linspace and logspace, in every dtype they take. Skips with
// "no CUDA device" on a machine without one.
#include <ember/ember.h>
#include <ember/nn/functional/conv.h>
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <utility>

#include "backend/conv_kernels.h"
#include "backend/cuda/cudnn_conv_plan.h"
#include "cuda/op_support.h"
#include "test_support.h"

namespace ember {
namespace {

using namespace cuda_test;
namespace F = nn::functional;

/// got (on the device) against want (the CPU's) within dtype's tolerance, relative to want's
/// largest element (a convolution's sums cancel).
void expect_close(const Tensor& got, const Tensor& want, Dtype dtype, const std::string& what) {
  const Tensor g = host(got), w = host(want);
  const double tol = tolerance(dtype), scale = w.abs().max().item<double>();
  EXPECT_TRUE(allclose(g, w, tol, tol * scale))
      << what << ": largest difference " << (g - w).abs().max().item<double>() << " of " << scale;
}

/// The device's y and the CPU's against each other, then their backward from one grad_output:
/// each (device, CPU) pair of leaves' gradients.
void expect_same_backward(
    const Tensor& yg, const Tensor& yc,
    std::initializer_list<std::pair<const char*, std::pair<Tensor, Tensor>>> leaves, Dtype dtype,
    const std::string& what) {
  expect_close(yg, yc, dtype, what);
  const Tensor dy = values(yc.sizes(), 0.13, dtype);
  (yc * dy).sum().backward();
  (yg * dy.to(gpu)).sum().backward();
  for (const auto& [name, pair] : leaves)
    expect_close(pair.first.grad(), pair.second.grad(), dtype, what + " " + name);
}

class CudaConv : public ::testing::TestWithParam<Dtype> {};

struct ConvCase {
  const char* name;
  int64_t C, O, k;
  F::ConvFuncOptions o;
};
const ConvCase kConvCases[] = {
    {"3x3 padded", 3, 8, 3, {.padding = 1}},
    {"strided dilated", 4, 6, 3, {.stride = {2, 1}, .padding = {1, 2}, .dilation = {2, 1}}},
    {"groups", 6, 9, 3, {.stride = 2, .groups = 3}},
    {"depthwise", 4, 4, 5, {.padding = 2, .groups = 4}},
    {"pointwise", 8, 5, 1, {}},
};

/// One case's device results: y, grad_input, grad_weight, grad_bias (from one grad_output).
struct ConvResults {
  Tensor y, dx, dw, db;
};

/// Runs case c on the device and on the CPU, checks each result against the CPU's, and returns
/// the device's.
ConvResults expect_case_matches_the_cpu(const ConvCase& c, Dtype dtype, const std::string& what) {
  const Tensor x = values({4, c.C, 17, 15}, 0.91, dtype);
  const Tensor w = values({c.O, c.C / c.o.groups, c.k, c.k}, 0.37, dtype);
  const Tensor b = values({c.O}, 1.3, dtype);
  const Tensor xc = x.detach().requires_grad_(), wc = w.detach().requires_grad_(),
               bc = b.detach().requires_grad_();
  const Tensor xg = x.to(gpu).detach().requires_grad_(), wg = w.to(gpu).detach().requires_grad_(),
               bg = b.to(gpu).detach().requires_grad_();
  F::ConvFuncOptions oc = c.o, og = c.o;
  oc.bias = bc, og.bias = bg;
  const Tensor yc = F::conv2d(xc, wc, oc), yg = F::conv2d(xg, wg, og);
  expect_same_backward(
      yg, yc, {{"grad_input", {xg, xc}}, {"grad_weight", {wg, wc}}, {"grad_bias", {bg, bc}}},
      dtype, what);
  return {host(yg), host(xg.grad()), host(wg.grad()), host(bg.grad())};
}

/// The plan the device's conv2d gets for case c (at compute capability 8.0, where every dtype
/// goes to cuDNN; the device code is built for sm_90).
cuda::CudnnConvPlan forward_plan(const ConvCase& c, Dtype dtype) {
  const TensorOptions o{.dtype = dtype, .device = gpu};
  const Tensor x = empty({4, c.C, 17, 15}, o);
  const Tensor w = empty({c.O, c.C / c.o.groups, c.k, c.k}, o);
  const Tensor y = F::conv2d(x, w, c.o);
  // An IntOrList of one value stands for both dimensions.
  const auto at = [](const F::IntOrList& v, int k) {
    return v.values().size() == 1 ? v.values()[0] : v.values()[size_t(k)];
  };
  backend::Conv2dParams p;
  for (int k = 0; k < 2; ++k) {
    p.stride[k] = at(c.o.stride, k);
    p.padding[k] = at(c.o.padding, k);
    p.dilation[k] = at(c.o.dilation, k);
  }
  p.groups = c.o.groups;
  return cuda::plan_cudnn_conv("conv2d", cuda::CudnnConvPass::forward, x, w, y, {}, p,
                               {.compute_capability_major = 8});
}

// With cuDNN on (the default), every case goes to cuDNN; float32 within 1e-5 of the CPU also
// shows cuDNN ran without TF32 (whose 10-bit mantissa would miss by ~1e-3).
TEST_P(CudaConv, Conv2dAndItsBackwardMatchTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Dtype dtype = GetParam();
  ASSERT_TRUE(cuda::cudnn_conv_enabled());
  for (const ConvCase& c : kConvCases) {
    const std::string what = std::string(dtype_name(dtype)) + " " + c.name;
    const cuda::CudnnConvPlan plan = forward_plan(c, dtype);
    EXPECT_TRUE(plan.use_cudnn) << what << ": " << plan.fallback;
    expect_case_matches_the_cpu(c, dtype, what + " (cuDNN)");
  }
}

// cuDNN switched off: the own im2col + GEMM kernels, against the CPU and against cuDNN.
TEST_P(CudaConv, TheOwnKernelsMatchTheCpuAndCudnn) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Dtype dtype = GetParam();
  for (const ConvCase& c : kConvCases) {
    const std::string what = std::string(dtype_name(dtype)) + " " + c.name;
    const ConvResults by_cudnn = expect_case_matches_the_cpu(c, dtype, what + " (cuDNN)");
    const ConvResults own = [&] {
      // Back on however the case ends (an exception included): the other tests expect cuDNN.
      struct CudnnOff {
        CudnnOff() { cuda::set_cudnn_conv_enabled(false); }
        ~CudnnOff() { cuda::set_cudnn_conv_enabled(true); }
      } off;
      return expect_case_matches_the_cpu(c, dtype, what + " (own kernels)");
    }();
    expect_close(own.y, by_cudnn.y, dtype, what + " y, own kernels against cuDNN");
    expect_close(own.dx, by_cudnn.dx, dtype, what + " grad_input, own kernels against cuDNN");
    expect_close(own.dw, by_cudnn.dw, dtype, what + " grad_weight, own kernels against cuDNN");
    expect_close(own.db, by_cudnn.db, dtype, what + " grad_bias, own kernels against cuDNN");
  }
}

TEST_P(CudaConv, ConvTranspose2dAndItsBackwardMatchTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Dtype dtype = GetParam();
  const Tensor x = values({3, 4, 9, 11}, 0.71, dtype);
  const Tensor w = values({4, 3, 3, 3}, 0.37, dtype);  // (C_in, C_out / groups, k, k)
  const Tensor b = values({6}, 1.3, dtype);
  const F::ConvTransposeFuncOptions o{.stride = 2, .padding = 1, .output_padding = 1, .groups = 2};
  const Tensor xc = x.detach().requires_grad_(), wc = w.detach().requires_grad_();
  const Tensor xg = x.to(gpu).detach().requires_grad_(), wg = w.to(gpu).detach().requires_grad_();
  F::ConvTransposeFuncOptions oc = o, og = o;
  oc.bias = b, og.bias = b.to(gpu);
  const Tensor yc = F::conv_transpose2d(xc, wc, oc), yg = F::conv_transpose2d(xg, wg, og);
  const std::string what = std::string(dtype_name(dtype)) + " conv_transpose2d";
  expect_same_backward(yg, yc, {{"grad_input", {xg, xc}}, {"grad_weight", {wg, wc}}}, dtype, what);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaConv,
                         ::testing::Values(kFloat32, kFloat64, kFloat16, kBFloat16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

// arange and linspace compute each element by the CPU kernel's formula: the same bits. logspace's
// pow is the device's (within 2 ulp in float64), so within the dtype's tolerance.
TEST(CudaCreation, RangesMatchTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64}) {
    const std::string what = dtype_name(dtype);
    const TensorOptions cpu_o{.dtype = dtype}, gpu_o{.dtype = dtype, .device = gpu};
    const bool floating = is_floating_point(dtype);
    EXPECT_TRUE(arange(-3, 300, 7, gpu_o).cpu().equal(arange(-3, 300, 7, cpu_o))) << what;
    for (const int64_t steps : {1, 2, 33, 1001})
      EXPECT_TRUE(linspace(-2.5, 100, steps, gpu_o).cpu().equal(linspace(-2.5, 100, steps, cpu_o)))
          << what << " linspace x" << steps;
    if (!floating) continue;  // an integer arange would truncate 0.1 to a zero step
    EXPECT_TRUE(arange(0, 2, 0.1, gpu_o).cpu().equal(arange(0, 2, 0.1, cpu_o))) << what;
    EXPECT_TRUE(allclose(host(logspace(-2, 3, 50, 10.0, gpu_o)),
                         host(logspace(-2, 3, 50, 10.0, cpu_o)), tolerance(dtype), 0))
        << what << " logspace";
  }
}

}  // namespace
}  // namespace ember
