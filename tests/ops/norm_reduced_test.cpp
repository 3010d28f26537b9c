// batch_norm and layer_norm on bfloat16/float16 activations: the kernels read and write the narrow
// type directly (Note [Reduced-precision norms] in src/backend/cpu/norm.cpp), computing in
// float32 in the float32 kernels' order, so every result is bit-identical to the explicit
// composition widen → float32 op → narrow; and the op allocates no float32 copy of its input.
#include <ember/allocator.h>
#include <ember/amp/autocast.h>
#include <ember/autograd.h>
#include <ember/creation.h>
#include <ember/generator.h>
#include <ember/nn/functional/layers.h>
#include <ember/threads.h>

#include <string>
#include <tuple>

#include "ops/norm.h"
#include "test_support.h"

namespace ember {
namespace {

namespace F = nn::functional;

// Bit equality: same dtype, shape and values (NaN-free data, so equal() is exact).
void expect_bits(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  EXPECT_TRUE(got.equal(want)) << what << ": max |diff| "
                               << (got.to(kFloat64) - want.to(kFloat64)).abs().max().item<double>();
}

// A (N, C, H, W) input in dt whose memory is channels-last (so non-contiguous as NCHW), with a
// large mean so the statistics' chunked sums matter.
Tensor nchw_input(Dtype dt, int64_t N, int64_t C, int64_t H, int64_t W) {
  return (randn({N, H, W, C}) * 2.0 + 3.0).to(dt).permute({0, 3, 1, 2});
}

class NormReduced : public ::testing::TestWithParam<Dtype> {};

// Planes of 49 (Vec tails), 16 (the column layout, Note [Batch norm layouts]) and 2304 elements
// (more than one widened run of 2048 per plane), training and eval, forward and backward.
TEST_P(NormReduced, BatchNormMatchesWidenComputeNarrow) {
  const Dtype dt = GetParam();
  manual_seed(17);
  for (auto [H, W] : {std::pair<int64_t, int64_t>{7, 7}, {4, 4}, {48, 48}}) {
    for (bool training : {true, false}) {
      const std::string what = "HxW " + std::to_string(H) + "x" + std::to_string(W) +
                               (training ? " training" : " eval");
      const int64_t C = 5;
      const Tensor x = nchw_input(dt, 3, C, H, W);
      ASSERT_FALSE(x.is_contiguous());
      const Tensor w = randn({C}), b = randn({C});
      const Tensor rm = randn({C}), rv = rand({C}) + 0.5;
      const Tensor rm_ref = rm.clone(), rv_ref = rv.clone();
      auto [y, mean, invstd] = F::batch_norm_forward(x, w, b, rm, rv, training, 0.1, 1e-5);
      auto [y32, mean32, invstd32] =
          F::batch_norm_forward(x.to(kFloat32), w, b, rm_ref, rv_ref, training, 0.1, 1e-5);
      expect_bits(y, y32.to(dt), what + " y");
      expect_bits(mean, mean32, what + " save_mean");
      expect_bits(invstd, invstd32, what + " save_invstd");
      expect_bits(rm, rm_ref, what + " running_mean");
      expect_bits(rv, rv_ref, what + " running_var");
      if (H * W < 32) continue;  // the fused backward takes planes of kNormPlanarMin or more
      const Tensor dy = randn({3, H, W, C}).to(dt).permute({0, 3, 1, 2});
      NoGradGuard no_grad;  // as inside a backward pass, where the fused kernel runs
      auto [gi, gw, gb] = F::batch_norm_backward(dy, x, w, mean, invstd, training);
      auto [gi32, gw32, gb32] = F::batch_norm_backward(dy.to(kFloat32), x.to(kFloat32), w,
                                                       mean32, invstd32, training);
      expect_bits(gi, gi32.to(dt), what + " grad_input");
      expect_bits(gw, gw32, what + " grad_weight");
      expect_bits(gb, gb32, what + " grad_bias");
    }
  }
}

// Through autograd: the input's gradient is in its dtype, the parameters' in float32.
TEST_P(NormReduced, BatchNormAutogradDtypes) {
  const Dtype dt = GetParam();
  manual_seed(5);
  const Tensor x = nchw_input(dt, 2, 3, 8, 8).detach().requires_grad_(true);
  const Tensor w = randn({3}).requires_grad_(true), b = randn({3}).requires_grad_(true);
  const Tensor y = F::batch_norm(x, Tensor(), Tensor(), {.weight = w, .bias = b, .training = true});
  ASSERT_EQ(y.dtype(), dt);
  y.sum().backward();
  EXPECT_EQ(x.grad().dtype(), dt);
  EXPECT_EQ(w.grad().dtype(), kFloat32);
  EXPECT_EQ(b.grad().dtype(), kFloat32);
  // Σ over a channel of dL/dx is 0 for batch statistics (within the narrow type's rounding).
  EXPECT_LT(x.grad().to(kFloat32).sum({0, 2, 3}).abs().max().item<float>(), 0.05f);
}

// Rows of 6 (tail only), 40 and 2500 (more than one run), with and without the affine.
TEST_P(NormReduced, LayerNormMatchesWidenComputeNarrow) {
  const Dtype dt = GetParam();
  manual_seed(7);
  for (int64_t n : {6, 40, 2500}) {
    const Tensor x = (randn({n, 4}) * 3.0 + 1.0).to(dt).t();  // (4, n), non-contiguous
    const Tensor w = randn({n}), b = randn({n});
    for (bool affine : {true, false}) {
      const Tensor wa = affine ? w : Tensor(), ba = affine ? b : Tensor();
      auto [y, mean, rstd] = F::layer_norm_forward(x, {n}, wa, ba, 1e-5);
      auto [y32, mean32, rstd32] = F::layer_norm_forward(x.to(kFloat32), {n}, wa, ba, 1e-5);
      const std::string what = "row " + std::to_string(n) + (affine ? " affine" : "");
      expect_bits(y, y32.to(dt), what + " y");
      expect_bits(mean, mean32, what + " mean");
      expect_bits(rstd, rstd32, what + " rstd");
    }
  }
}

// Under CPU autocast batch_norm of a narrow input stays narrow (PyTorch 1.13) and now allocates
// only its output and the (C) statistics: no float32 copy of the activations (input or output).
TEST_P(NormReduced, AutocastBatchNormAllocatesNoFloat32Copies) {
  const Dtype dt = GetParam();
  const Tensor x = randn({32, 16, 32, 32}).to(dt), w = randn({16}), b = randn({16});
  const Tensor rm = zeros({16}), rv = ones({16});
  const int threads = get_num_threads();
  set_num_threads(1);
  size_t peak = 0;
  Tensor y;
  {
    amp::autocast region(kCPU, dt);
    NoGradGuard no_grad;
    const size_t before = cpu::allocator_stats().allocated_bytes;
    cpu::reset_peak_allocated_bytes();
    y = F::batch_norm(x, rm, rv, {.weight = w, .bias = b, .training = true});
    peak = cpu::allocator_stats().peak_allocated_bytes - before;
  }
  set_num_threads(threads);
  ASSERT_EQ(y.dtype(), dt);
  const size_t out_bytes = size_t(y.numel()) * 2, float_copy = size_t(x.numel()) * 4;
  EXPECT_GE(peak, out_bytes) << "the allocator did not see the op's own allocations";
  EXPECT_LT(peak, out_bytes + float_copy / 4);
}

INSTANTIATE_TEST_SUITE_P(HalfTypes, NormReduced, ::testing::Values(kBFloat16, kFloat16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace ember
