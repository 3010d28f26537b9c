// float16/bfloat16 kernels against float64 references computed from the same (already rounded)
// inputs, and the run-time path choice (Note [Reduced-precision GEMM]).
//
// Tolerances: a product accumulated in float32 and rounded once to the output dtype is within
// half an output ulp of the exact result (relative 2^-9 for bfloat16, 2^-12 for float16) plus
// float32's accumulation error, bounded by K * 2^-24 * (|a| @ |b|). The checks use twice both.
#include <ember/allocator.h>
#include <ember/amp/autocast.h>
#include <ember/creation.h>
#include <ember/generator.h>
#include <ember/linalg.h>
#include <ember/nn/functional/conv.h>
#include <ember/reduce.h>
#include <ember/threads.h>

#include <cmath>
#include <vector>

#include "backend/cpu/blas.h"
#include "backend/cpu/conv_onednn.h"
#include "backend/cpu/cpu_features.h"
#include "backend/cpu/dispatch.h"
#include "backend/cpu/half_convert.h"
#include "test_support.h"

namespace ember {
namespace {

double unit_roundoff(Dtype dt) { return dt == kBFloat16 ? std::ldexp(1.0, -9) : std::ldexp(1.0, -12); }

// |got - ref| <= 2 * (u * |ref| + K * 2^-24 * scale) everywhere.
void expect_within(const Tensor& got, const Tensor& ref, const Tensor& scale, int64_t K, Dtype dt,
                   const std::string& what) {
  ASSERT_EQ(got.dtype(), dt) << what;
  ASSERT_EQ(got.sizes(), ref.sizes()) << what;
  const Tensor err = (got.to(kFloat64) - ref).abs();
  const Tensor bound = (ref.abs() * unit_roundoff(dt) + scale * (double(K) * std::ldexp(1.0, -24))) * 2.0;
  EXPECT_TRUE((err <= bound).all().item<bool>())
      << what << ": max error " << err.max().item<double>() << ", worst ratio "
      << (err / (bound + 1e-300)).max().item<double>();
}

Tensor rounded_randn(std::vector<int64_t> shape, Dtype dt) { return randn(shape).to(dt); }

class ReducedGemm : public ::testing::TestWithParam<Dtype> {};

TEST_P(ReducedGemm, MatmulLayoutsAgainstFloat64) {
  const Dtype dt = GetParam();
  manual_seed(0);
  struct Case { int64_t m, k, n; };
  // The last is above the multiply-adds where a library path runs threaded (kThreadedBf16Macs).
  for (Case c : {Case{1, 7, 5}, Case{7, 13, 1}, Case{7, 13, 5}, Case{64, 300, 33},
                 Case{96, 256, 48}, Case{192, 170, 130}}) {
    const std::string what = std::string(dtype_name(dt)) + " " + std::to_string(c.m) + "x" +
                             std::to_string(c.k) + "x" + std::to_string(c.n);
    const Tensor a = rounded_randn({c.m, c.k}, dt), b = rounded_randn({c.k, c.n}, dt);
    const Tensor a64 = a.to(kFloat64), b64 = b.to(kFloat64);
    const Tensor ref = matmul(a64, b64), scale = matmul(a64.abs(), b64.abs());
    expect_within(matmul(a, b), ref, scale, c.k, dt, what);
    // Transposed operands (BLAS reads them as transposes) and a sliced one.
    const Tensor at = a.t().contiguous().t(), bt = b.t().contiguous().t();
    expect_within(matmul(at, bt), ref, scale, c.k, dt, what + " transposed");
    const Tensor wide = rounded_randn({c.m, 2 * c.k}, dt);
    const Tensor sliced = wide.narrow(1, 0, c.k);
    expect_within(matmul(sliced, b), matmul(sliced.to(kFloat64), b64),
                  matmul(sliced.to(kFloat64).abs(), b64.abs()), c.k, dt, what + " sliced");
  }
}

TEST_P(ReducedGemm, BatchedBroadcastAndBetaAgainstFloat64) {
  const Dtype dt = GetParam();
  manual_seed(1);
  const int64_t B = 3, M = 17, K = 40, N = 9;
  const Tensor a = rounded_randn({B, M, K}, dt), b = rounded_randn({K, N}, dt);
  const Tensor a64 = a.to(kFloat64), b64 = b.to(kFloat64);
  // (B, M, K) @ (K, N): b is a broadcast batch.
  expect_within(matmul(a, b), matmul(a64, b64), matmul(a64.abs(), b64.abs()), K, dt, "broadcast");
  const Tensor bb = b.expand({B, K, N});
  expect_within(bmm(a, bb), matmul(a64, b64), matmul(a64.abs(), b64.abs()), K, dt, "bmm expand");
  // beta != 0: addmm / baddbmm read the output's old values.
  const Tensor self = rounded_randn({B, M, N}, dt);
  const Tensor got = baddbmm(self, a, bb, {.beta = 0.5, .alpha = 2.0});
  const Tensor ref = self.to(kFloat64) * 0.5 + matmul(a64, b64) * 2.0;
  const Tensor scale = self.to(kFloat64).abs() * 0.5 + matmul(a64.abs(), b64.abs()) * 2.0;
  expect_within(got, ref, scale, K + 1, dt, "baddbmm");
  // A non-contiguous output: matmul's result transposed via out of a transposed product.
  const Tensor m2 = rounded_randn({M, K}, dt);
  const Tensor r2 = matmul(b.t(), m2.t());  // (N, K) @ (K, M)
  expect_within(r2, matmul(b64.t(), m2.to(kFloat64).t()),
                matmul(b64.t().abs(), m2.to(kFloat64).t().abs()), K, dt, "transposed product");
}

// The point of float32 accumulation: a long dot product of bfloat16 values does not stall where
// a bfloat16 running sum would (at 256 for a sum of ones).
TEST_P(ReducedGemm, AccumulatesInFloat32) {
  const Dtype dt = GetParam();
  const int64_t K = 4096;
  const Tensor a = ones({1, K}, {.dtype = dt}), b = ones({K, 1}, {.dtype = dt});
  EXPECT_EQ(matmul(a, b).item<double>(), 4096.0);
  EXPECT_EQ(ones({K}, {.dtype = dt}).sum().item<double>(), 4096.0);
  EXPECT_EQ(ones({3000}, {.dtype = dt}).sum().item<double>(),
            double(full({1}, 3000.0).to(dt).item<double>()));  // one rounding at the end
}

TEST_P(ReducedGemm, Conv2dAgainstFloat64) {
  const Dtype dt = GetParam();
  manual_seed(2);
  const Tensor x = rounded_randn({2, 3, 9, 9}, dt), w = rounded_randn({4, 3, 3, 3}, dt);
  const Tensor got = nn::functional::conv2d(x, w, {.padding = 1});
  const Tensor x64 = x.to(kFloat64), w64 = w.to(kFloat64);
  const Tensor ref = nn::functional::conv2d(x64, w64, {.padding = 1});
  const Tensor scale = nn::functional::conv2d(x64.abs(), w64.abs(), {.padding = 1});
  expect_within(got, ref, scale, 27, dt, "conv2d");
}

// Products of at most 4096 multiply-adds take the small path (Note [Small reduced-precision
// GEMM]): operands widened while packed, any strides, a broadcast batch, beta, a strided output.
TEST_P(ReducedGemm, SmallProductsAgainstFloat64) {
  const Dtype dt = GetParam();
  manual_seed(3);
  const int64_t B = 2, M = 4, K = 16, N = 8;  // 1024 multiply-adds
  const Tensor a = rounded_randn({B, K, M}, dt).transpose(1, 2), b = rounded_randn({K, N}, dt);
  const Tensor a64 = a.to(kFloat64), b64 = b.to(kFloat64);
  expect_within(matmul(a, b), matmul(a64, b64), matmul(a64.abs(), b64.abs()), K, dt, "small");
  const Tensor self = rounded_randn({N, M}, dt).t();  // (M, N), column-major
  const Tensor got = addmm(self, a.select(0, 1), b, {.beta = -1.5, .alpha = 0.5});
  const Tensor a1 = a64.select(0, 1);
  expect_within(got, self.to(kFloat64) * -1.5 + matmul(a1, b64) * 0.5,
                self.to(kFloat64).abs() * 1.5 + matmul(a1.abs(), b64.abs()) * 0.5, K + 1, dt,
                "small addmm");
  Tensor out = empty({N, M}, {.dtype = dt}).t();  // written through its transposed strides
  cpu::gemm(a.select(0, 0).unsqueeze(0), b.unsqueeze(0), out.unsqueeze(0), 1, 0);
  expect_within(out, matmul(a64.select(0, 0), b64), matmul(a64.select(0, 0).abs(), b64.abs()), K,
                dt, "small, strided output");
  // The largest product of the small path and the smallest of the other agree to the bound.
  for (int64_t k : {256, 257}) {
    const Tensor x = rounded_randn({4, k}, dt), y = rounded_randn({k, 4}, dt);
    expect_within(matmul(x, y), matmul(x.to(kFloat64), y.to(kFloat64)),
                  matmul(x.to(kFloat64).abs(), y.to(kFloat64).abs()), k, dt,
                  "k = " + std::to_string(k));
  }
}

// Reductions of float16/bfloat16 accumulate in float32 and round once (the same bound as a
// product: twice half an output ulp plus n * 2^-24 of the magnitudes summed); amax is exact.
TEST_P(ReducedGemm, ReductionsAgainstFloat64) {
  const Dtype dt = GetParam();
  manual_seed(4);
  const Tensor x = rounded_randn({6, 1000}, dt) + 0.5;  // a mean away from 0
  const Tensor x64 = x.to(kFloat64);
  const int64_t n = 1000;
  expect_within(x.sum(), x64.sum(), x64.abs().sum(), 6 * n, dt, "sum");
  expect_within(x.sum(1), x64.sum(1), x64.abs().sum(1), n, dt, "sum(1)");
  expect_within(x.sum(0), x64.sum(0), x64.abs().sum(0), 6, dt, "sum(0)");
  expect_within(x.mean(1), x64.mean(1), x64.abs().mean(1), n, dt, "mean(1)");
  expect_within(x.norm(), x64.norm(), x64.norm(), 6 * n, dt, "norm");
  // Variance: float32's error is relative to the mean square, not to the variance.
  expect_within(x.var(1), x64.var(1), (x64 * x64).mean(1) * 2.0, n, dt, "var(1)");
  expect_within(x.cumsum(1), x64.cumsum(1), x64.abs().cumsum(1), n, dt, "cumsum(1)");
  EXPECT_TRUE(x.amax(1).to(kFloat64).equal(x64.amax(1))) << "amax(1)";
}

// Convolutions (Note [Reduced-precision convolution]): forward, grad_input, grad_weight and
// grad_bias against float64 from the same rounded operands, over the CPU's kernels (direct,
// flat, im2col + GEMM, pointwise, depthwise), stride/padding/dilation/groups, a channels-last
// input, and a batch of several chunks. Each output is a sum of K products, so the product
// bound applies with that K, the scale being the same computation on magnitudes.
struct ConvCase {
  std::vector<int64_t> x, w;  // (N, C, H, W), (O, C / groups, kH, kW)
  int64_t stride, padding, dilation, groups;
  bool channels_last;
};

// conv2d's forward and its three gradients in dt against float64 from the same rounded
// operands, each output a sum of K products (see expect_within).
void expect_conv_within(const ConvCase& c, Dtype dt, const std::string& what) {
  namespace F = nn::functional;
  const Tensor x = c.channels_last
                       ? rounded_randn({c.x[0], c.x[2], c.x[3], c.x[1]}, dt).permute({0, 3, 1, 2})
                       : rounded_randn(c.x, dt);
  const Tensor w = rounded_randn(c.w, dt), b = rounded_randn({c.w[0]}, dt);
  const Tensor x64 = x.to(kFloat64), w64 = w.to(kFloat64), b64 = b.to(kFloat64);
  auto options = [&](const Tensor& bias) {
    return F::ConvFuncOptions{.bias = bias, .stride = c.stride, .padding = c.padding,
                              .dilation = c.dilation, .groups = c.groups};
  };
  const Tensor y = F::conv2d(x, w, options(b));
  const int64_t K = c.w[1] * c.w[2] * c.w[3];
  expect_within(y, F::conv2d(x64, w64, options(b64)),
                F::conv2d(x64.abs(), w64.abs(), options(b64.abs())), K + 1, dt, what);
  const Tensor g = rounded_randn(y.sizes().vec(), dt), g64 = g.to(kFloat64);
  const auto [gi, gw, gb] = F::conv2d_backward(g, x, w, options(b));
  const auto [ri, rw, rb] = F::conv2d_backward(g64, x64, w64, options(b64));
  const auto [si, sw, sb] = F::conv2d_backward(g64.abs(), x64.abs(), w64.abs(), options(b64));
  const int64_t positions = y.size(0) * y.size(2) * y.size(3);
  expect_within(gi, ri, si, c.w[0] / c.groups * c.w[2] * c.w[3], dt, what + " grad_input");
  expect_within(gw, rw, sw, positions, dt, what + " grad_weight");
  expect_within(gb, rb, sb, positions, dt, what + " grad_bias");
}

TEST_P(ReducedGemm, ConvAndGradientsAgainstFloat64) {
  namespace F = nn::functional;
  const Dtype dt = GetParam();
  manual_seed(5);
  const std::vector<ConvCase> cases = {
      {{3, 2, 9, 9}, {4, 2, 2, 2}, 2, 0, 1, 1, false},      // direct (K = 8, stride 2)
      {{2, 3, 9, 9}, {4, 3, 3, 3}, 1, 1, 1, 1, true},       // flat, channels-last input
      {{2, 8, 11, 11}, {6, 8, 3, 3}, 2, 1, 1, 1, false},    // im2col + GEMM, stride 2
      {{2, 8, 12, 12}, {6, 4, 3, 3}, 1, 2, 2, 2, false},    // dilation 2, 2 groups
      {{4, 16, 7, 7}, {8, 16, 1, 1}, 1, 0, 1, 1, true},     // pointwise
      {{2, 6, 10, 10}, {6, 1, 3, 3}, 2, 1, 1, 6, false},    // depthwise, stride 2
      {{12, 4, 64, 64}, {8, 4, 3, 3}, 1, 1, 1, 1, false},   // several chunks of images
      // Reductions of 32 terms or more: bfloat16 dot products where the CPU has them (Note
      // [bfloat16 dot-product convolution]), the chunks above elsewhere. 3x3 stride 1 keeps
      // float32 Winograd forward and grad_input, so there only grad_weight takes them.
      {{4, 32, 14, 14}, {64, 32, 3, 3}, 1, 1, 1, 1, false},  // the reference CNN's conv2
      {{3, 32, 14, 14}, {16, 32, 3, 3}, 1, 1, 1, 1, false},  // threaded GEMMs (3 images)
      {{2, 40, 30, 30}, {8, 40, 3, 3}, 1, 2, 2, 1, false},   // blocks of rows, dilation 2
      {{3, 36, 9, 9}, {8, 36, 3, 3}, 2, 1, 1, 1, false},     // stride 2: grad_input widens
      {{4, 64, 7, 7}, {16, 64, 1, 1}, 1, 0, 1, 1, true},     // pointwise
      {{4, 16, 10, 10}, {8, 8, 3, 3}, 1, 2, 2, 2, false}};   // groups, dilation 2
  for (const ConvCase& c : cases)
    expect_conv_within(c, dt,
                       std::string(dtype_name(dt)) + " x" + ::testing::PrintToString(c.x) + " w" +
                           ::testing::PrintToString(c.w));
  // conv_transpose2d: its forward is conv2d's adjoint, its grad_input conv2d.
  const Tensor x = rounded_randn({2, 4, 5, 5}, dt), w = rounded_randn({4, 3, 3, 3}, dt);
  const Tensor x64 = x.to(kFloat64), w64 = w.to(kFloat64);
  const F::ConvTransposeFuncOptions o{.stride = 2, .padding = 1};
  const Tensor y = F::conv_transpose2d(x, w, o);
  expect_within(y, F::conv_transpose2d(x64, w64, o), F::conv_transpose2d(x64.abs(), w64.abs(), o),
                36, dt, "conv_transpose2d");
  const Tensor g = rounded_randn(y.sizes().vec(), dt), g64 = g.to(kFloat64);
  const auto [gi, gw, gb] = F::conv_transpose2d_backward(g, x, w, o);
  const auto [ri, rw, rb] = F::conv_transpose2d_backward(g64, x64, w64, o);
  const auto [si, sw, sb] = F::conv_transpose2d_backward(g64.abs(), x64.abs(), w64.abs(), o);
  expect_within(gi, ri, si, 27, dt, "conv_transpose2d grad_input");
  expect_within(gw, rw, sw, 2 * 25, dt, "conv_transpose2d grad_weight");
}

// bfloat16 convolutions take bfloat16 dot products exactly where bfloat16 GEMMs take oneDNN and
// the reduction is long enough to fill its kernel; everything else widens to float32.
TEST(ReducedConvPath, DotProductsFollowTheGemmPathAndReduction) {
  using cpu::ReducedGemmPath;
  EXPECT_TRUE(cpu::choose_bf16_dot_conv(kBFloat16, ReducedGemmPath::kOnednn, 288));
  EXPECT_TRUE(cpu::choose_bf16_dot_conv(kBFloat16, ReducedGemmPath::kOnednn, 32));
  // conv 1 -> 32 (K = 9): the flat float32 kernel on widened chunks.
  EXPECT_FALSE(cpu::choose_bf16_dot_conv(kBFloat16, ReducedGemmPath::kOnednn, 9));
  // OpenBLAS's sbgemm (not in Debian's OpenBLAS, so never measured) and the convert path: widen.
  EXPECT_FALSE(cpu::choose_bf16_dot_conv(kBFloat16, ReducedGemmPath::kSbgemm, 288));
  EXPECT_FALSE(cpu::choose_bf16_dot_conv(kBFloat16, ReducedGemmPath::kConvert, 288));
  EXPECT_FALSE(cpu::choose_bf16_dot_conv(kFloat16, ReducedGemmPath::kOnednn, 288));
  // oneDNN's convolution primitives (Note [oneDNN bfloat16 convolution]): bfloat16 on oneDNN's
  // path, at least one 16-channel block per group in and out (conv 32 -> 64, not 1 -> 32), out
  // only for grad_weight (conv 1 -> 32's too).
  using cpu::OnednnConvPass;
  for (OnednnConvPass pass :
       {OnednnConvPass::kForward, OnednnConvPass::kGradInput, OnednnConvPass::kGradWeight}) {
    const bool weight = pass == OnednnConvPass::kGradWeight;
    EXPECT_TRUE(cpu::choose_onednn_conv(kBFloat16, ReducedGemmPath::kOnednn, pass, 32, 64));
    EXPECT_TRUE(cpu::choose_onednn_conv(kBFloat16, ReducedGemmPath::kOnednn, pass, 16, 16));
    EXPECT_EQ(cpu::choose_onednn_conv(kBFloat16, ReducedGemmPath::kOnednn, pass, 1, 32), weight);
    EXPECT_FALSE(cpu::choose_onednn_conv(kBFloat16, ReducedGemmPath::kOnednn, pass, 32, 8));
    EXPECT_FALSE(cpu::choose_onednn_conv(kBFloat16, ReducedGemmPath::kConvert, pass, 32, 64));
    EXPECT_FALSE(cpu::choose_onednn_conv(kBFloat16, ReducedGemmPath::kSbgemm, pass, 32, 64));
    EXPECT_FALSE(cpu::choose_onednn_conv(kFloat16, ReducedGemmPath::kOnednn, pass, 32, 64));
  }
  // This process: the same choice as its bfloat16 GEMM.
  const bool onednn = cpu::reduced_gemm_path(kBFloat16).rfind("oneDNN", 0) == 0;
  EXPECT_EQ(cpu::onednn_conv(OnednnConvPass::kForward, 32, 64), onednn);
  EXPECT_EQ(cpu::bf16_dot_conv(288), onednn);
  EXPECT_FALSE(cpu::bf16_dot_conv(9));
  if (cpu::cpu_features().avx512_bf16 && cpu::cpu_level().needs.avx512f) {
    EXPECT_TRUE(onednn);
  }
}

// The few-taps kernels (Note [Few-taps convolution], src/backend/cpu/conv_few_taps.cpp):
// bfloat16 convolutions of stride 1 with at most 32 taps and fewer than 16 channels in, forward,
// grad_weight and grad_bias against float64, on output rows around the vector width (1, 9, 15,
// 16, 17, 20, 28, 34 columns), odd heights, padding beyond the kernel's reach, dilation, groups,
// one tap and 32, a channels-last input, with one and two threads. (Where the CPU level has no
// AVX-512 the same shapes check the other paths.)
TEST(FewTapsConv, AgainstFloat64AroundTheVectorWidth) {
  manual_seed(11);
  const std::vector<ConvCase> cases = {
      {{5, 1, 28, 28}, {32, 1, 3, 3}, 1, 1, 1, 1, false},  // the reference CNN's conv 1 -> 32
      {{2, 1, 7, 1}, {3, 1, 3, 3}, 1, 1, 1, 1, false},     // one column
      {{3, 2, 9, 15}, {5, 2, 3, 3}, 1, 1, 1, 1, false},    // 15 columns, 9 rows
      {{2, 3, 6, 16}, {4, 3, 3, 3}, 1, 1, 1, 1, true},     // 16 columns, 27 taps, channels-last
      {{2, 1, 5, 17}, {6, 1, 3, 3}, 1, 1, 1, 1, false},    // 17 columns, 5 rows
      {{2, 2, 11, 33}, {4, 2, 4, 4}, 1, 2, 1, 1, false},   // 32 taps, 34 columns, 12 rows
      {{2, 4, 9, 20}, {6, 2, 3, 3}, 1, 2, 2, 2, false},    // 2 groups, dilation 2
      {{2, 1, 5, 5}, {3, 1, 3, 3}, 1, 3, 1, 1, false},     // padding beyond the kernel's reach
      {{3, 1, 4, 4}, {2, 1, 1, 1}, 1, 0, 1, 1, false}};    // one tap
  const int threads = get_num_threads();
  for (const int t : {1, 2}) {
    set_num_threads(t);
    for (const ConvCase& c : cases)
      expect_conv_within(c, kBFloat16,
                         "x" + ::testing::PrintToString(c.x) + " w" +
                             ::testing::PrintToString(c.w) + " padding " +
                             std::to_string(c.padding) + ", " + std::to_string(t) + " threads");
  }
  set_num_threads(threads);
}

// An infinity in the input reaches exactly the outputs whose windows read it, as in float64: no
// vector reads past an input row into the next (rows of 16 + 4 columns here; infinities in the
// partial vector's reach, in the full one's through the kernel's left column, and first in a
// row, where a read past the row before would take it).
TEST(FewTapsConv, AnInfinityReachesOnlyItsWindows) {
  namespace F = nn::functional;
  manual_seed(12);
  Tensor x = rounded_randn({2, 1, 9, 20}, kBFloat16);
  x.select(0, 1).select(0, 0).select(0, 4).select(0, 16).fill_(INFINITY);
  x.select(0, 1).select(0, 0).select(0, 6).select(0, 0).fill_(-INFINITY);
  const Tensor w = rounded_randn({8, 1, 3, 3}, kBFloat16).abs() + 0.25;  // no zero weight
  const Tensor y = F::conv2d(x, w, {.padding = 1}).to(kFloat64);
  const Tensor ref = F::conv2d(x.to(kFloat64), w.to(kFloat64), {.padding = 1});
  EXPECT_EQ(ref.isinf().sum().item<int64_t>(), 8 * (9 + 6));
  EXPECT_TRUE(y.isinf().equal(ref.isinf()));
  EXPECT_TRUE(y.isnan().equal(ref.isnan()));
}

// oneDNN's convolution primitives, called directly so that a shape they do not take fails here
// rather than passing through another path: forward, grad_input and grad_weight against float64
// on shapes off the reference CNN's (batch 1, stride 2, padding 0, groups, dilation, pointwise,
// odd sizes, few channels as in the golden file's bfloat16 case); then the same convolutions
// through the ops on a channels-last (non-contiguous) input, which take them where
// onednn_conv chooses them. Skipped without bfloat16 dot products and oneDNN.
TEST(OnednnConv, AgainstFloat64OnOddShapes) {
  namespace F = nn::functional;
  if (!cpu::onednn_conv(cpu::OnednnConvPass::kForward, 16, 16))
    GTEST_SKIP() << "no oneDNN bfloat16 convolutions on this CPU";
  const Dtype dt = kBFloat16;
  manual_seed(7);
  const std::vector<ConvCase> cases = {
      {{1, 32, 14, 14}, {64, 32, 3, 3}, 1, 1, 1, 1, false},  // batch 1
      {{2, 32, 9, 9}, {32, 32, 3, 3}, 2, 1, 1, 1, true},     // stride 2, odd size
      {{2, 32, 12, 12}, {32, 16, 3, 3}, 1, 2, 2, 2, false},  // 2 groups, dilation 2
      {{3, 16, 10, 11}, {16, 16, 3, 3}, 1, 0, 1, 1, true},   // padding 0, H != W
      {{2, 48, 8, 8}, {16, 48, 1, 1}, 1, 0, 1, 1, false},    // pointwise, 3 channel blocks
      {{2, 16, 7, 7}, {32, 16, 5, 5}, 2, 2, 1, 1, true},     // 5x5, stride 2
      {{2, 1, 12, 12}, {32, 1, 3, 3}, 1, 1, 1, 1, false},    // conv 1 -> 32: grad_weight
      {{1, 3, 5, 5}, {2, 3, 3, 3}, 1, 1, 1, 1, false}};      // few channels (golden case)
  auto data = [](const Tensor& t) { return static_cast<BFloat16*>(t.data_ptr()); };
  for (const ConvCase& c : cases) {
    const std::string what = "x" + ::testing::PrintToString(c.x) + " w" +
                             ::testing::PrintToString(c.w) + " stride " +
                             std::to_string(c.stride) + " groups " + std::to_string(c.groups);
    const Tensor x = rounded_randn(c.x, dt), w = rounded_randn(c.w, dt),
                 b = rounded_randn({c.w[0]}, dt);
    const Tensor x64 = x.to(kFloat64), w64 = w.to(kFloat64), b64 = b.to(kFloat64);
    auto options = [&](const Tensor& bias) {
      return F::ConvFuncOptions{.bias = bias, .stride = c.stride, .padding = c.padding,
                                .dilation = c.dilation, .groups = c.groups};
    };
    const Tensor ref = F::conv2d(x64, w64, options(b64));
    const Tensor scale = F::conv2d(x64.abs(), w64.abs(), options(b64.abs()));
    const cpu::OnednnConvShape s{c.x[0],     c.x[1],    c.x[2],    c.x[3],    c.w[0],    c.w[2],
                                 c.w[3],     ref.size(2), ref.size(3), c.groups, c.stride,
                                 c.stride,   c.padding, c.padding, c.dilation, c.dilation};
    const int64_t K = c.w[1] * c.w[2] * c.w[3];
    const Tensor y = empty(ref.sizes(), {.dtype = dt});
    ASSERT_TRUE(cpu::onednn_conv2d(s, data(x), data(w), data(b), data(y))) << what;
    expect_within(y, ref, scale, K + 1, dt, what + " forward");
    const Tensor g = rounded_randn(ref.sizes().vec(), dt), g64 = g.to(kFloat64);
    const auto [ri, rw, rb] = F::conv2d_backward(g64, x64, w64, options(b64));
    const auto [si, sw, sb] = F::conv2d_backward(g64.abs(), x64.abs(), w64.abs(), options(b64));
    const int64_t positions = ref.size(0) * ref.size(2) * ref.size(3);
    const int64_t grad_input_terms = c.w[0] / c.groups * c.w[2] * c.w[3];
    const Tensor gi = empty(x.sizes(), {.dtype = dt}), gw = empty(w.sizes(), {.dtype = dt});
    ASSERT_TRUE(cpu::onednn_conv2d_grad_input(s, data(g), data(w), data(gi))) << what;
    expect_within(gi, ri, si, grad_input_terms, dt, what + " grad_input");
    // oneDNN 2.6 has no bfloat16 JIT grad_weight for 3 input channels (its im2col GEMM, not
    // used: the caller's path runs); every shape that onednn_conv chooses must have one.
    if (cpu::onednn_conv2d_grad_weight(s, data(g), data(x), data(gw))) {
      expect_within(gw, rw, sw, positions, dt, what + " grad_weight");
      // The backward in one call: grad reordered once for both passes, grad_bias summed in the
      // weights' pass; the weights' pass is the same primitive with or without the bias.
      const bool with_input = cpu::onednn_conv(cpu::OnednnConvPass::kGradInput,
                                               c.x[1] / c.groups, c.w[0] / c.groups);
      const Tensor ai = empty(x.sizes(), {.dtype = dt}), aw = empty(w.sizes(), {.dtype = dt}),
                   ab = empty({c.w[0]}, {.dtype = dt}), nw = empty(w.sizes(), {.dtype = dt});
      ASSERT_TRUE(cpu::onednn_conv2d_backward(s, data(g), data(x), data(w),
                                              with_input ? data(ai) : nullptr, data(aw),
                                              data(ab)))
          << what;
      if (with_input) {
        EXPECT_TRUE(ai.equal(gi)) << what << " backward's grad_input";
      }
      expect_within(aw, rw, sw, positions, dt, what + " backward's grad_weight");
      expect_within(ab, rb, sb, positions, dt, what + " backward's grad_bias");
      ASSERT_TRUE(cpu::onednn_conv2d_backward(s, data(g), data(x), data(w), nullptr, data(nw),
                                              nullptr))
          << what;
      EXPECT_TRUE(nw.equal(gw)) << what << " backward's grad_weight alone";
    } else {
      EXPECT_FALSE(cpu::onednn_conv(cpu::OnednnConvPass::kGradWeight, c.x[1] / c.groups,
                                    c.w[0] / c.groups))
          << what;
    }
    // Through the ops, on a non-contiguous input.
    const Tensor xl = c.channels_last ? x.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2})
                                      : x.transpose(2, 3).contiguous().transpose(2, 3);
    ASSERT_FALSE(xl.is_contiguous());
    expect_within(F::conv2d(xl, w, options(b)), ref, scale, K + 1, dt, what + " conv2d op");
    const auto [oi, ow, ob] = F::conv2d_backward(g, xl, w, options(b));
    expect_within(oi, ri, si, grad_input_terms, dt, what + " conv2d_backward grad_input");
    expect_within(ow, rw, sw, positions, dt, what + " conv2d_backward grad_weight");
    expect_within(ob, rb, sb, positions, dt, what + " conv2d_backward grad_bias");
  }
}

// Under autocast a convolution allocates no float32 copy of its operands or result: its peak
// stays below the 16-bit cast input and output plus one float32 copy of the input (converting
// around a float32 kernel, as the front end used to, needs two: the input and the output).
// oneDNN's primitives (16 channels here) take bfloat16 copies of the input and output in their
// channel-blocked layouts instead, plus the weights' and their scratchpad (a few KiB): below two
// float32 copies, above one.
TEST_P(ReducedGemm, AutocastConvAllocatesNoFloat32Copies) {
  const Dtype dt = GetParam();
  const Tensor x = randn({64, 16, 32, 32}), w = randn({16, 16, 3, 3});
  const int threads = get_num_threads();
  set_num_threads(1);  // one chunk buffer at a time
  size_t peak = 0;
  Tensor y;
  {
    amp::autocast region(kCPU, dt);
    const size_t before = cpu::allocator_stats().allocated_bytes;
    cpu::reset_peak_allocated_bytes();
    y = nn::functional::conv2d(x, w, {.padding = 1});
    peak = cpu::allocator_stats().peak_allocated_bytes - before;
  }
  set_num_threads(threads);
  ASSERT_EQ(y.dtype(), dt);
  const size_t half_bytes = size_t(x.numel() + y.numel()) * 2, float_copy = size_t(x.numel()) * 4;
  EXPECT_GE(peak, half_bytes) << "the allocator did not see the op's own allocations";
  const bool blocked_copies =
      dt == kBFloat16 && cpu::onednn_conv(cpu::OnednnConvPass::kForward, 16, 16);
  EXPECT_LT(peak, blocked_copies ? 2 * half_bytes + (64 << 10) : half_bytes + float_copy);
  const Tensor x64 = x.to(dt).to(kFloat64), w64 = w.to(dt).to(kFloat64);
  expect_within(y, nn::functional::conv2d(x64, w64, {.padding = 1}),
                nn::functional::conv2d(x64.abs(), w64.abs(), {.padding = 1}), 144, dt,
                "autocast conv2d");
}

INSTANTIATE_TEST_SUITE_P(HalfTypes, ReducedGemm, ::testing::Values(kBFloat16, kFloat16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

// The bulk conversions (F16C where the CPU has it) give the scalar conversions' bits for every
// float16 value, and for floats around every rounding boundary.
TEST(HalfConvert, BulkMatchesScalar) {
  std::vector<Half> all(65536);
  for (uint32_t i = 0; i < 65536; ++i) all[i] = Half::from_bits(uint16_t(i));
  std::vector<float> wide(65536);
  cpu::to_float(all.data(), wide.data(), 65536);
  for (uint32_t i = 0; i < 65536; ++i) {
    const float want = float(all[i]);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(wide[i])) << i;
    } else {
      EXPECT_EQ(detail::float_bits(wide[i]), detail::float_bits(want)) << i;
    }
  }
  std::vector<float> f;
  for (uint32_t i = 0; i < 65536; ++i) {
    const float v = float(all[i]);
    if (std::isnan(v)) continue;
    for (float d : {0.0f, 0.5f, -0.5f, 0.25f}) {  // the value, and near the halfway points
      const float ulp = std::nextafter(v, INFINITY) - v;
      f.push_back(v + d * (std::isfinite(ulp) ? ulp : 0.0f) * 8192.0f);
    }
  }
  f.push_back(NAN);
  std::vector<Half> h(f.size());
  std::vector<BFloat16> bf(f.size());
  cpu::from_float(f.data(), h.data(), int64_t(f.size()));
  cpu::from_float(f.data(), bf.data(), int64_t(f.size()));
  for (size_t i = 0; i < f.size(); ++i) {
    if (std::isnan(f[i])) {
      EXPECT_TRUE(std::isnan(float(h[i])));
      EXPECT_TRUE(std::isnan(float(bf[i])));
      continue;
    }
    EXPECT_EQ(h[i].x, Half(f[i]).x) << f[i];
    EXPECT_EQ(bf[i].x, BFloat16(f[i]).x) << f[i];
  }
}

TEST(ReducedGemmPath, ChoiceFollowsCpuLevelAndLibraries) {
  using cpu::ReducedGemmPath;
  cpu::CpuFeatures none, bf16, amx, avx512, avx2;
  bf16.avx512f = bf16.avx512_bf16 = true;
  amx.avx512f = amx.amx_bf16 = true;
  avx512.avx512f = true;
  avx2.avx2 = true;
  const cpu::Bf16GemmLibraries both{.onednn = true, .sbgemm = true},
      openblas{.onednn = false, .sbgemm = true}, neither{};
  EXPECT_EQ(cpu::choose_reduced_gemm_path(kBFloat16, bf16, avx512, both), ReducedGemmPath::kOnednn);
  EXPECT_EQ(cpu::choose_reduced_gemm_path(kBFloat16, amx, avx512, both), ReducedGemmPath::kOnednn);
  EXPECT_EQ(cpu::choose_reduced_gemm_path(kBFloat16, bf16, avx512, openblas),
            ReducedGemmPath::kSbgemm);
  EXPECT_EQ(cpu::choose_reduced_gemm_path(kBFloat16, bf16, avx512, neither),
            ReducedGemmPath::kConvert);
  // Below the avx512 level (EMBER_CPU_CAPABILITY=avx2 on this CPU), no AVX-512 library code.
  EXPECT_EQ(cpu::choose_reduced_gemm_path(kBFloat16, bf16, avx2, both), ReducedGemmPath::kConvert);
  // Without bfloat16 dot products the libraries emulate them: converting is faster.
  EXPECT_EQ(cpu::choose_reduced_gemm_path(kBFloat16, avx512, avx512, both),
            ReducedGemmPath::kConvert);
  EXPECT_EQ(cpu::choose_reduced_gemm_path(kBFloat16, none, none, both), ReducedGemmPath::kConvert);
  EXPECT_EQ(cpu::choose_reduced_gemm_path(kFloat16, bf16, avx512, both), ReducedGemmPath::kConvert);
  // Where the CPU runs bfloat16 dot products at the level in use, the oneDNN path is the one
  // taken: scripts/bootstrap.sh installs libdnnl-dev, and the library is found by its soname.
  if (cpu::cpu_features().avx512_bf16 && cpu::cpu_level().needs.avx512f) {
    EXPECT_EQ(cpu::reduced_gemm_path(kBFloat16).rfind("oneDNN", 0), 0u)
        << cpu::reduced_gemm_path(kBFloat16);
  }
  // What this machine runs, in the test log.
  RecordProperty("cpu_features", cpu::cpu_features_string());
  RecordProperty("bf16_gemm", cpu::reduced_gemm_path(kBFloat16));
  RecordProperty("fp16_gemm", cpu::reduced_gemm_path(kFloat16));
  std::printf("cpu features: %s\nbfloat16 GEMM: %s\nfloat16 GEMM: %s\n",
              cpu::cpu_features_string().c_str(), cpu::reduced_gemm_path(kBFloat16).c_str(),
              cpu::reduced_gemm_path(kFloat16).c_str());
}

}  // namespace
}  // namespace ember
