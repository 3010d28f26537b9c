// The CUDA creation kernels (src/backend/cuda/creation_body.cuh) and the CUDA convolution
// (conv_plan.cpp's im2col + GEMM driver and conv_body.cuh's column kernels), run by their CPU
// emulation over launches planned as the device's are, against the CPU backend's kernels,
// without a GPU:
//   - arange, linspace and logspace in every dtype the CUDA backend stores but bool, bit for bit
//     with the CPU's (its vector runs and scalar tails, int64 wrap-around, linspace counting from
//     both ends);
//   - im2col bit for bit with a plain loop over the receptive fields, in both column layouts the
//     driver uses, for strides, padding, dilation and groups; col2im bit for bit with a scatter
//     of the columns summed in the same order (with and without bias, and into images larger
//     than the convolution reads, as conv_transpose's output_padding makes them);
//   - conv2d, conv2d_adjoint and conv2d_weight_grad run whole by the driver with the CPU's gemm
//     (each GEMM operand checked to be one cuBLAS reads without a copy) and the emulated column
//     kernels, in one chunk and one image per chunk, against the CPU's conv kernels, in every
//     floating dtype within the CUDA tests' tolerances (the GEMM sums in another order);
//   - the cuDNN plans (cudnn_conv_plan.cpp): each pass's descriptor values (dims, strides,
//     padding, stride, dilation, groups, the bias's (1, channels, 1, 1)), the data, compute and
//     math types per dtype (no TF32 for float32: FMA math), and the calls left to the own
//     kernels with their reasons (switched off, empty, bfloat16 below sm_80, an output cuDNN's
//     forward would not give); the cuDNN calls themselves run only on a GPU (tests/cuda).
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/cuda/conv_plan.h"
#include "backend/cuda/creation_plan.h"
#include "backend/cuda/cudnn_conv_plan.h"
#include "backend/cuda/emulation.h"
#include "backend/cuda/gemm_plan.h"
#include "cuda/op_support.h"
#include "test_support.h"

namespace ember::cuda {
namespace {

using backend::Conv2dParams;

const Dtype kFloating[] = {kFloat32, kFloat64, kFloat16, kBFloat16};
const Dtype kRangeDtypes[] = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64};

/// a and b hold the same bits (equal() would take -0.0 for 0.0).
bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.sizes() != b.sizes()) return false;
  const Dtype bits = a.element_size() == 2 ? kInt16 : a.element_size() == 4 ? kInt32 : kInt64;
  return a.contiguous().view(bits).equal(b.contiguous().view(bits));
}

const backend::CreationKernels& cpu_creation() { return backend::backend_for(kCPU)->creation; }

// ── creation ──────────────────────────────────────────────────────────────────────────────────

TEST(CudaCreationPlan, ArangeMatchesTheCpuBitForBit) {
  struct Range {
    Scalar start, step;
    int64_t n;
  };
  const int64_t big = std::numeric_limits<int64_t>::max() - 5;
  const Range ranges[] = {
      {0.0, 0.1, 20},  // float32's vector runs round differently from its tail
      {0.0, 0.1, 10},  // a tail only
      {-3.7, 0.37, 1000},
      {5.0, -0.3, 77},
      {0.5, 1.3, 40},  // truncated to 0 and 1 for the integers
      {int64_t(3), int64_t(7), 100},
      {int64_t(-5), int64_t(-3), 33},
      {big, int64_t(3), 10},  // int64 wraps around; the floating types round the huge start
  };
  for (const Dtype dtype : kRangeDtypes)
    for (const Range& r : ranges) {
      const Tensor want = empty({r.n}, {.dtype = dtype}), got = empty({r.n}, {.dtype = dtype});
      cpu_creation().arange(want, r.start, r.step);
      kernels::emulate_range(plan_arange_launch(got, r.start, r.step));
      EXPECT_TRUE(same_bits(got, want))
          << dtype_name(dtype) << " arange from " << r.start.to_double() << " by "
          << r.step.to_double() << " x" << r.n;
    }
}

TEST(CudaCreationPlan, LinspaceMatchesTheCpuBitForBit) {
  const std::pair<double, double> bounds[] = {
      {0, 1}, {-2.5, 7.3}, {10, -3}, {1e-3, 1000}, {-7, 1000}};
  for (const Dtype dtype : kRangeDtypes)
    for (const auto& [start, end] : bounds)
      for (const int64_t steps : {2, 3, 17, 31, 32, 33, 64, 65, 100, 1001}) {
        const Tensor want = empty({steps}, {.dtype = dtype}), got = empty_like(want);
        cpu_creation().linspace(want, start, end);
        kernels::emulate_range(plan_linspace_launch(got, start, end));
        EXPECT_TRUE(same_bits(got, want))
            << dtype_name(dtype) << " linspace " << start << " .. " << end << " x" << steps;
      }
}

TEST(CudaCreationPlan, LogspaceMatchesTheCpuBitForBit) {
  for (const Dtype dtype : kRangeDtypes)
    for (const double base : {10.0, 2.0, 0.5})
      for (const int64_t steps : {5, 64, 101}) {
        const Tensor exponents = empty({steps}, {.dtype = kFloat64});
        cpu_creation().linspace(exponents, -3.0, 4.5);
        const Tensor want = empty({steps}, {.dtype = dtype}), got = empty_like(want);
        cpu_creation().logspace(want, exponents, base);
        kernels::emulate_range(plan_logspace_launch(got, exponents, base));
        EXPECT_TRUE(same_bits(got, want))
            << dtype_name(dtype) << " logspace base " << base << " x" << steps;
      }
}

TEST(CudaCreationPlan, DtypesWithoutAKernelAreRefused) {
  EXPECT_ERROR(plan_arange_launch(empty({4}, {.dtype = kUInt8}), 0, 1), "the cuda backend has no");
  EXPECT_ERROR(plan_arange_launch(empty({4}, {.dtype = kBool}), 0, 1), "not implemented for dtype");
  EXPECT_ERROR(plan_linspace_launch(empty({1}), 0, 1), "two or more steps");
  EXPECT_ERROR(plan_logspace_launch(empty({4}), empty({4}), 10), "float64 exponents");
}

// ── convolution ───────────────────────────────────────────────────────────────────────────────

struct Problem {
  const char* name;
  int64_t N, C, H, W, O, kh, kw;
  Conv2dParams p;
  int64_t Ho() const {
    return (H + 2 * p.padding[0] - p.dilation[0] * (kh - 1) - 1) / p.stride[0] + 1;
  }
  int64_t Wo() const {
    return (W + 2 * p.padding[1] - p.dilation[1] * (kw - 1) - 1) / p.stride[1] + 1;
  }
  std::string what(Dtype dtype) const { return std::string(dtype_name(dtype)) + " " + name; }
};

const Problem kProblems[] = {
    {"3x3 padded", 2, 3, 7, 6, 4, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 1}},
    {"strided dilated groups", 3, 4, 9, 8, 6, 3, 2, {{2, 3}, {1, 2}, {2, 1}, 2}},
    {"three groups", 2, 6, 5, 7, 6, 2, 3, {{1, 2}, {0, 1}, {1, 1}, 3}},
    {"depthwise 5x5", 2, 4, 6, 5, 8, 5, 5, {{2, 2}, {2, 2}, {1, 1}, 4}},
    {"one channel a group", 2, 3, 6, 6, 3, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 3}},
    {"pointwise", 2, 4, 5, 6, 3, 1, 1, {}},
    {"1x1 strided", 3, 4, 5, 6, 3, 1, 1, {{2, 2}, {0, 0}, {1, 1}, 1}},
};

ConvShape shape_of(const Problem& pr) {
  return {pr.N, pr.C, pr.H, pr.W, pr.O, pr.kh, pr.kw, pr.Ho(), pr.Wo(), pr.p.groups};
}

/// f(column element, image element) for every column element of a problem read from an image
/// element inside images (N, C, H, W) (not the padding): the flat offsets in the columns
/// (N, G, K, L) and the images, in (n, c, i, j, y, x) order.
template <class F>
void each_tap(const Problem& pr, int64_t H, int64_t W, F&& f) {
  const ConvShape s = shape_of(pr);
  const int64_t Cg = s.C / s.G, K = s.K(), L = s.L();
  for (int64_t n = 0; n < s.N; ++n)
    for (int64_t c = 0; c < s.C; ++c)
      for (int64_t i = 0; i < s.kh; ++i)
        for (int64_t j = 0; j < s.kw; ++j)
          for (int64_t y = 0; y < s.Ho; ++y)
            for (int64_t xo = 0; xo < s.Wo; ++xo) {
              const int64_t h = y * pr.p.stride[0] - pr.p.padding[0] + i * pr.p.dilation[0];
              const int64_t w = xo * pr.p.stride[1] - pr.p.padding[1] + j * pr.p.dilation[1];
              if (h < 0 || h >= H || w < 0 || w >= W) continue;
              const int64_t k = (c % Cg * s.kh + i) * s.kw + j;
              f(((n * s.G + c / Cg) * K + k) * L + y * s.Wo + xo, ((n * s.C + c) * H + h) * W + w);
            }
}

/// A problem's columns (N, G, K, L) as a plain loop reads the receptive fields (zero in the
/// padding), in float64 (exact for every floating dtype).
Tensor reference_columns(const Problem& pr, const Tensor& images) {
  const ConvShape s = shape_of(pr);
  const Tensor x = images.to(kFloat64).contiguous();
  const double* in = x.data_ptr<double>();
  Tensor col = zeros({s.N, s.G, s.K(), s.L()}, {.dtype = kFloat64});
  double* out = col.data_ptr<double>();
  each_tap(pr, s.H, s.W, [&](int64_t at_col, int64_t at_image) { out[at_col] = in[at_image]; });
  return col;
}

/// col2im by scattering each column element onto the image element it was read from, summed in
/// Acc in the kernel's (i, j) order, plus bias, rounded once to dtype: images (N, C, H, W).
template <class Acc>
Tensor reference_images(const Problem& pr, const Tensor& col, const Tensor& bias, int64_t H,
                        int64_t W, Dtype dtype) {
  const Dtype acc = sizeof(Acc) == 8 ? kFloat64 : kFloat32;
  const Tensor c64 = col.to(acc).contiguous();
  const Acc* in = c64.data_ptr<Acc>();
  Tensor sum = zeros({pr.N, pr.C, H, W}, {.dtype = acc});
  Acc* out = sum.data_ptr<Acc>();
  each_tap(pr, H, W, [&](int64_t at_col, int64_t at_image) { out[at_image] += in[at_col]; });
  if (bias.defined()) {
    const Tensor b = bias.to(acc).contiguous();
    for (int64_t e = 0; e < sum.numel(); ++e) out[e] += b.data_ptr<Acc>()[e / (H * W) % pr.C];
  }
  return sum.to(dtype);
}

TEST(CudaConvPlan, Im2colReadsTheReceptiveFieldsBitForBit) {
  for (const Dtype dtype : kFloating)
    for (const Problem& pr : kProblems) {
      const ConvShape s = shape_of(pr);
      const int64_t G = s.G, K = s.K(), L = s.L(), N = s.N;
      const Tensor images = cuda_test::values({N, s.C, s.H, s.W}, 0.37, dtype);
      const Tensor want = reference_columns(pr, images).to(dtype);
      // The forward's layout (N, G, K, L) and the weight gradient's (G, K, N, L).
      const Tensor col = full({N, G, K, L}, 7.0, {.dtype = dtype});
      kernels::emulate_im2col(
          plan_im2col_launch(s, pr.p, images, col, {G * K * L, K * L, L}, false));
      EXPECT_TRUE(same_bits(col, want)) << pr.what(dtype);
      const Tensor by_group = full({G, K, N, L}, 7.0, {.dtype = dtype});
      kernels::emulate_im2col(
          plan_im2col_launch(s, pr.p, images, by_group, {L, K * N * L, N * L}, false));
      EXPECT_TRUE(same_bits(by_group, want.permute({1, 2, 0, 3}))) << pr.what(dtype) << " by group";
    }
}

TEST(CudaConvPlan, Col2imSumsThePatchesBitForBit) {
  for (const Dtype dtype : kFloating)
    for (const Problem& pr : kProblems)
      for (const bool with_bias : {false, true})
        for (const int64_t extra : {0, 1}) {  // images a row and a column beyond what is read
          const ConvShape s0 = shape_of(pr);
          const int64_t H = s0.H + extra, W = s0.W + extra;
          ConvShape s = s0;
          s.H = H, s.W = W;
          const Tensor col = cuda_test::values({s.N, s.G, s.K(), s.L()}, 0.61, dtype);
          const Tensor bias = with_bias ? cuda_test::values({s.C}, 1.3, dtype) : Tensor();
          const Tensor want = dtype == kFloat64
                                  ? reference_images<double>(pr, col, bias, H, W, dtype)
                                  : reference_images<float>(pr, col, bias, H, W, dtype);
          const Tensor images = full({s.N, s.C, H, W}, 7.0, {.dtype = dtype});
          kernels::emulate_im2col(plan_im2col_launch(
              s, pr.p, images, col, {s.G * s.K() * s.L(), s.K() * s.L(), s.L()}, true, bias));
          EXPECT_TRUE(same_bits(images, want))
              << pr.what(dtype) << (with_bias ? " with bias" : "") << " +" << extra;
        }
}

/// The CPU's gemm, after checking that cuBLAS would read each operand as it is (gemm.cpp copies
/// the others): the driver's views cost no copies on the device.
void checked_cpu_gemm(const Tensor& a, const Tensor& b, const Tensor& c, Scalar alpha,
                      Scalar beta) {
  EXPECT_TRUE(gemm_operand(a)) << "a " << a.sizes() << " strides " << a.strides();
  EXPECT_TRUE(gemm_operand(b)) << "b " << b.sizes() << " strides " << b.strides();
  EXPECT_TRUE(gemm_operand(c, true)) << "c " << c.sizes() << " strides " << c.strides();
  backend::backend_for(kCPU)->linalg.gemm(a, b, c, alpha, beta);
}

void expect_close(const Tensor& got, const Tensor& want, Dtype dtype, const std::string& what) {
  const double tol = cuda_test::tolerance(dtype);
  const double scale = want.to(kFloat64).abs().max().item<double>();
  EXPECT_TRUE(allclose(got.to(kFloat64), want.to(kFloat64), tol, tol * scale))
      << what << ": largest difference "
      << (got.to(kFloat64) - want.to(kFloat64)).abs().max().item<double>() << " of " << scale;
}

TEST(CudaConvPlan, TheGemmDriverMatchesTheCpuConvolutions) {
  const backend::ConvKernels& cpu = backend::backend_for(kCPU)->conv;
  for (const int64_t col_bytes : {int64_t(256) << 20, int64_t(1)})  // one chunk; an image each
    for (const Dtype dtype : kFloating)
      for (const Problem& pr : kProblems) {
        const ConvSteps steps{&checked_cpu_gemm, &kernels::emulate_im2col, col_bytes};
        const std::string what =
            pr.what(dtype) + (col_bytes == 1 ? " (an image per chunk)" : " (one chunk)");
        const int64_t N = pr.N, C = pr.C, O = pr.O, Ho = pr.Ho(), Wo = pr.Wo();
        const Tensor input = cuda_test::values({N, C, pr.H, pr.W}, 0.37, dtype);
        const Tensor weight = cuda_test::values({O, C / pr.p.groups, pr.kh, pr.kw}, 0.53, dtype);
        const Tensor bias = cuda_test::values({O}, 1.1, dtype);
        const Tensor grad = cuda_test::values({N, O, Ho, Wo}, 0.29, dtype);
        for (const bool with_bias : {false, true}) {
          const Tensor b = with_bias ? bias : Tensor();
          const Tensor want = empty({N, O, Ho, Wo}, {.dtype = dtype}), got = empty_like(want);
          cpu.conv2d(input, weight, b, want, pr.p);
          conv2d_by_gemm(steps, input, weight, b, got, pr.p);
          expect_close(got, want, dtype, what + " conv2d" + (with_bias ? " with bias" : ""));
        }
        // conv_transpose2d's bias is the adjoint's, one per input channel.
        for (const bool with_bias : {false, true}) {
          const Tensor b = with_bias ? cuda_test::values({C}, 0.7, dtype) : Tensor();
          const Tensor want = empty({N, C, pr.H, pr.W}, {.dtype = dtype}), got = empty_like(want);
          cpu.conv2d_adjoint(grad, weight, b, want, pr.p);
          conv2d_adjoint_by_gemm(steps, grad, weight, b, got, pr.p);
          expect_close(got, want, dtype,
                       what + " conv2d_adjoint" + (with_bias ? " with bias" : ""));
        }
        const Tensor want = empty_like(weight), got = full(weight.sizes(), 7.0, {.dtype = dtype});
        cpu.conv2d_weight_grad(grad, input, want, pr.p);
        conv2d_weight_grad_by_gemm(steps, grad, input, got, pr.p);
        expect_close(got, want, dtype, what + " conv2d_weight_grad");
      }
}

TEST(CudaConvPlan, AnEmptyBatchHasAZeroWeightGradient) {
  const ConvSteps steps{&checked_cpu_gemm, &kernels::emulate_im2col};
  const Tensor gw = full({2, 3, 3, 3}, 7.0);
  conv2d_weight_grad_by_gemm(steps, empty({0, 2, 4, 4}), empty({0, 3, 6, 6}), gw, {});
  EXPECT_TRUE(gw.equal(zeros({2, 3, 3, 3})));
}

TEST(CudaConvPlan, OperandsTheKernelsCannotTakeAreRefused) {
  const ConvSteps steps{&checked_cpu_gemm, &kernels::emulate_im2col};
  EXPECT_ERROR(conv2d_by_gemm(steps, zeros({1, 2, 4, 4}, {.dtype = kInt64}),
                              zeros({3, 2, 3, 3}, {.dtype = kInt64}), {},
                              empty({1, 3, 2, 2}, {.dtype = kInt64}), {}),
               "the cuda backend has no int64 kernel");
  Conv2dParams three_groups;
  three_groups.groups = 3;
  EXPECT_ERROR(conv2d_by_gemm(steps, zeros({1, 4, 4, 4}), zeros({3, 2, 3, 3}), {},
                              empty({1, 3, 2, 2}), three_groups),
               "expected 3 groups to divide");
  EXPECT_ERROR(conv2d_by_gemm(steps, zeros({1, 2, 4, 4}).transpose(2, 3), zeros({3, 2, 3, 3}), {},
                              empty({1, 3, 2, 2}), {}),
               "expected contiguous input");
}

// ── cuDNN plans ───────────────────────────────────────────────────────────────────────────────

const CudnnDevice kHopper{.compute_capability_major = 9};

TEST(CudaCudnnConvPlan, EachPassDescribesTheConvolution) {
  // The "strided dilated groups" problem: x (3, 4, 9, 8), w (6, 2, 3, 2), y (3, 6, 4, 4).
  const Problem& pr = kProblems[1];
  ASSERT_EQ(pr.Ho(), 4);
  ASSERT_EQ(pr.Wo(), 4);
  const Tensor x = zeros({3, 4, 9, 8}), w = zeros({6, 2, 3, 2}), y = zeros({3, 6, 4, 4});
  const std::array<int, 4> x_dims{3, 4, 9, 8}, x_strides{288, 72, 8, 1};
  const std::array<int, 4> y_dims{3, 6, 4, 4}, y_strides{96, 16, 4, 1};
  const std::array<int, 4> w_dims{6, 2, 3, 2};
  struct PassCase {
    CudnnConvPass pass;
    Tensor bias;
    std::array<int, 4> bias_dims;
  };
  const PassCase passes[] = {{CudnnConvPass::forward, zeros({6}), {1, 6, 1, 1}},
                             {CudnnConvPass::backward_data, zeros({4}), {1, 4, 1, 1}},
                             {CudnnConvPass::backward_filter, Tensor(), {}}};
  for (const PassCase& c : passes) {
    const CudnnConvPlan plan = plan_cudnn_conv("conv", c.pass, x, w, y, c.bias, pr.p, kHopper);
    ASSERT_TRUE(plan.use_cudnn) << plan.fallback;
    EXPECT_TRUE(plan.fallback.empty());
    EXPECT_EQ(plan.pass, c.pass);
    EXPECT_EQ(plan.x_dims, x_dims);
    EXPECT_EQ(plan.x_strides, x_strides);
    EXPECT_EQ(plan.y_dims, y_dims);
    EXPECT_EQ(plan.y_strides, y_strides);
    EXPECT_EQ(plan.w_dims, w_dims);
    EXPECT_EQ(plan.padding, (std::array<int, 2>{1, 2}));
    EXPECT_EQ(plan.stride, (std::array<int, 2>{2, 3}));
    EXPECT_EQ(plan.dilation, (std::array<int, 2>{2, 1}));
    EXPECT_EQ(plan.groups, 2);
    EXPECT_EQ(plan.bias, c.bias.defined());
    if (c.bias.defined()) {
      EXPECT_EQ(plan.bias_dims, c.bias_dims);
      EXPECT_EQ(plan.bias_strides, (std::array<int, 4>{c.bias_dims[1], 1, 1, 1}));
    }
  }
}

TEST(CudaCudnnConvPlan, TypesFollowPyTorchWithoutTf32) {
  struct Want {
    Dtype dtype;
    CudnnType data, compute;
    CudnnMath math;
  };
  const Want wants[] = {
      {kFloat32, CudnnType::float32, CudnnType::float32, CudnnMath::fma},  // no TF32
      {kFloat64, CudnnType::float64, CudnnType::float64, CudnnMath::default_math},
      {kFloat16, CudnnType::float16, CudnnType::float32, CudnnMath::tensor_op},
      {kBFloat16, CudnnType::bfloat16, CudnnType::float32, CudnnMath::tensor_op},
  };
  static_assert(!kCudnnAllowTf32, "ember's TF32 switch for cuDNN accepts only false");
  for (const Want& want : wants) {
    const TensorOptions o{.dtype = want.dtype};
    const CudnnConvPlan plan =
        plan_cudnn_conv("conv2d", CudnnConvPass::forward, zeros({1, 2, 5, 5}, o),
                        zeros({3, 2, 3, 3}, o), zeros({1, 3, 3, 3}, o), {}, {}, kHopper);
    ASSERT_TRUE(plan.use_cudnn) << dtype_name(want.dtype) << ": " << plan.fallback;
    EXPECT_EQ(plan.data_type, want.data) << dtype_name(want.dtype);
    EXPECT_EQ(plan.compute_type, want.compute) << dtype_name(want.dtype);
    EXPECT_EQ(plan.math, want.math) << dtype_name(want.dtype);
  }
  // Were TF32 allowed (PyTorch's default), float32 would leave the math to cuDNN.
  const CudnnConvPlan tf32 =
      plan_cudnn_conv("conv2d", CudnnConvPass::forward, zeros({1, 2, 5, 5}), zeros({3, 2, 3, 3}),
                      zeros({1, 3, 3, 3}), {}, {}, {.compute_capability_major = 9, .allow_tf32 = true});
  EXPECT_EQ(tf32.math, CudnnMath::default_math);
}

TEST(CudaCudnnConvPlan, CallsCudnnDoesNotTakeFallBackWithTheirReason) {
  const auto forward = [](const Tensor& x, const Tensor& w, const Tensor& y,
                          const Conv2dParams& p = {}, const CudnnDevice& d = kHopper) {
    return plan_cudnn_conv("conv2d", CudnnConvPass::forward, x, w, y, {}, p, d);
  };
  const auto expect_fallback = [](const CudnnConvPlan& plan, const std::string& reason) {
    EXPECT_FALSE(plan.use_cudnn);
    EXPECT_NE(plan.fallback.find(reason), std::string::npos) << plan.fallback;
  };
  expect_fallback(forward(zeros({0, 2, 5, 5}), zeros({3, 2, 3, 3}), zeros({0, 3, 3, 3})),
                  "an empty tensor");
  const TensorOptions bf16{.dtype = kBFloat16};
  expect_fallback(forward(zeros({1, 2, 5, 5}, bf16), zeros({3, 2, 3, 3}, bf16),
                          zeros({1, 3, 3, 3}, bf16), {}, {.compute_capability_major = 7}),
                  "bfloat16 convolutions need compute capability 8.0 in cuDNN, the device has 7.x");
  EXPECT_TRUE(forward(zeros({1, 2, 5, 5}, bf16), zeros({3, 2, 3, 3}, bf16),
                      zeros({1, 3, 3, 3}, bf16), {}, {.compute_capability_major = 8})
                  .use_cudnn);
  // conv_transpose2d (stride 2, dilation 3, kernel 2) of 3 rows with output_padding 2 (at least
  // the stride, allowed below the dilation) makes an image of 10 rows, where a convolution of 10
  // rows gives 4: cuDNN's backward data takes no such image. output_padding 1 (9 rows) it takes.
  Conv2dParams strided;
  strided.stride[0] = strided.stride[1] = 2;
  strided.dilation[0] = strided.dilation[1] = 3;
  expect_fallback(plan_cudnn_conv("conv2d_adjoint", CudnnConvPass::backward_data,
                                  zeros({1, 2, 10, 10}), zeros({3, 2, 2, 2}), zeros({1, 3, 3, 3}),
                                  {}, strided, kHopper),
                  "the output is 3x3 where cuDNN's forward gives 4x4 for an input of 10x10");
  EXPECT_TRUE(plan_cudnn_conv("conv2d_adjoint", CudnnConvPass::backward_data, zeros({1, 2, 9, 9}),
                              zeros({3, 2, 2, 2}), zeros({1, 3, 3, 3}), {}, strided, kHopper)
                  .use_cudnn);
  // Switched off (torch.backends.cudnn.enabled = False), then on again.
  ASSERT_TRUE(cudnn_conv_enabled());
  set_cudnn_conv_enabled(false);
  const CudnnConvPlan off = forward(zeros({1, 2, 5, 5}), zeros({3, 2, 3, 3}), zeros({1, 3, 3, 3}));
  set_cudnn_conv_enabled(true);
  expect_fallback(off, "cuDNN is switched off");
  EXPECT_TRUE(forward(zeros({1, 2, 5, 5}), zeros({3, 2, 3, 3}), zeros({1, 3, 3, 3})).use_cudnn);
}

TEST(CudaCudnnConvPlan, OperandsNeitherPathTakesAreRefused) {
  EXPECT_ERROR(plan_cudnn_conv("conv2d", CudnnConvPass::forward, zeros({1, 2, 5, 5}),
                               zeros({3, 2, 3, 3}), zeros({1, 3, 3, 3}), zeros({4}), {}, kHopper),
               "expected a contiguous bias of 3 torch.float32, got [4]");
  EXPECT_ERROR(plan_cudnn_conv("conv2d_weight_grad", CudnnConvPass::backward_filter,
                               zeros({1, 2, 5, 5}), zeros({3, 2, 3, 3}), zeros({1, 3, 3, 3}),
                               zeros({3}), {}, kHopper),
               "(none for the weight gradient)");
  EXPECT_ERROR(plan_cudnn_conv("conv2d", CudnnConvPass::forward,
                               zeros({1, 2, 5, 5}, {.dtype = kInt32}),
                               zeros({3, 2, 3, 3}, {.dtype = kInt32}),
                               zeros({1, 3, 3, 3}, {.dtype = kInt32}), {}, {}, kHopper),
               "the cuda backend has no int32 kernel");
}

}  // namespace
}  // namespace ember::cuda
