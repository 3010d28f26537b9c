// batch_norm, layer_norm, rms_norm and group_norm on bfloat16/float16 activations: the kernels
// read and write the narrow type directly (Note [Reduced-precision norms] in
// src/backend/cpu/norm.cpp), computing in float32 in the float32 kernels' order, so every result
// is bit-identical to the explicit composition widen → float32 op → narrow; the op allocates no
// float32 copy of its input; forward and backward match PyTorch 1.13 (golden/norm_reduced.json).
#include <ember/allocator.h>
#include <ember/amp/autocast.h>
#include <ember/autograd.h>
#include <ember/creation.h>
#include <ember/generator.h>
#include <ember/nn/functional/layers.h>
#include <ember/threads.h>

#include <string>
#include <tuple>

#include "golden_support.h"
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

// A fused backward's (grad_input, grad_weight, grad_bias) against the float32 one's: grad_input
// narrowed to dt, the parameters' (float32 weight) as they are; no parameter gradients without
// the affine.
using Grads3 = std::tuple<Tensor, Tensor, Tensor>;
void expect_grads_bits(const Grads3& got, const Grads3& want32, Dtype dt, bool affine,
                       const std::string& what) {
  expect_bits(std::get<0>(got), std::get<0>(want32).to(dt), what + " grad_input");
  ASSERT_EQ(std::get<1>(got).defined(), affine) << what;
  if (!affine) return;
  expect_bits(std::get<1>(got), std::get<1>(want32), what + " grad_weight");
  expect_bits(std::get<2>(got), std::get<2>(want32), what + " grad_bias");
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
      expect_grads_bits(F::batch_norm_backward(dy, x, w, mean, invstd, training),
                        F::batch_norm_backward(dy.to(kFloat32), x.to(kFloat32), w, mean32,
                                               invstd32, training),
                        dt, true, what);
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

// Rows of 6 (tail only), 40 and 2500 (more than one run), with and without the affine: the
// forward and the fused backward (Note [Fused row norm backward]).
TEST_P(NormReduced, LayerNormMatchesWidenComputeNarrow) {
  const Dtype dt = GetParam();
  manual_seed(7);
  for (int64_t n : {6, 40, 2500}) {
    const Tensor x = (randn({n, 4}) * 3.0 + 1.0).to(dt).t();  // (4, n), non-contiguous
    const Tensor w = randn({n}), b = randn({n});
    const Tensor dy = randn({4, n}).to(dt);
    for (bool affine : {true, false}) {
      const Tensor wa = affine ? w : Tensor(), ba = affine ? b : Tensor();
      auto [y, mean, rstd] = F::layer_norm_forward(x, {n}, wa, ba, 1e-5);
      auto [y32, mean32, rstd32] = F::layer_norm_forward(x.to(kFloat32), {n}, wa, ba, 1e-5);
      const std::string what = "row " + std::to_string(n) + (affine ? " affine" : "");
      expect_bits(y, y32.to(dt), what + " y");
      expect_bits(mean, mean32, what + " mean");
      expect_bits(rstd, rstd32, what + " rstd");
      expect_grads_bits(F::layer_norm_backward(dy, x, {n}, mean, rstd, wa),
                        F::layer_norm_backward(dy.to(kFloat32), x.to(kFloat32), {n}, mean, rstd,
                                               wa),
                        dt, affine, what);
    }
  }
}

// rms_norm's forward and fused backward on the same rows, with and without the weight.
TEST_P(NormReduced, RmsNormMatchesWidenComputeNarrow) {
  const Dtype dt = GetParam();
  manual_seed(10);
  for (int64_t n : {6, 40, 2500}) {
    const Tensor x = (randn({n, 4}) * 3.0 + 1.0).to(dt).t();  // (4, n), non-contiguous
    const Tensor dy = randn({4, n}).to(dt);
    for (const Tensor& w : {randn({n}), Tensor()}) {
      const std::string what = "row " + std::to_string(n) + (w.defined() ? " weight" : "");
      auto [y, rstd] = F::rms_norm_forward(x, {n}, w, 1e-5);
      auto [y32, rstd32] = F::rms_norm_forward(x.to(kFloat32), {n}, w, 1e-5);
      expect_bits(y, y32.to(dt), what + " y");
      expect_bits(rstd, rstd32, what + " rstd");
      auto [gi, gw] = F::rms_norm_backward(dy, x, {n}, rstd, w);
      auto [gi32, gw32] = F::rms_norm_backward(dy.to(kFloat32), x.to(kFloat32), {n}, rstd, w);
      expect_bits(gi, gi32.to(dt), what + " grad_input");
      ASSERT_EQ(gw.defined(), w.defined()) << what;
      if (w.defined()) expect_bits(gw, gw32, what + " grad_weight");
    }
  }
}

// group_norm's forward and fused backward (Note [Fused group norm backward]): planes of 1, 49
// (Vec tails) and 2304 elements (more than one widened run), channels-last memory, with and
// without the affine.
TEST_P(NormReduced, GroupNormMatchesWidenComputeNarrow) {
  const Dtype dt = GetParam();
  manual_seed(11);
  for (auto [H, W] : {std::pair<int64_t, int64_t>{1, 1}, {7, 7}, {48, 48}}) {
    const int64_t C = 6, G = 3;
    const Tensor x = nchw_input(dt, 2, C, H, W), dy = nchw_input(dt, 2, C, H, W);
    const Tensor w = randn({C}), b = randn({C});
    for (bool affine : {true, false}) {
      const Tensor wa = affine ? w : Tensor(), ba = affine ? b : Tensor();
      const std::string what = "HxW " + std::to_string(H) + "x" + std::to_string(W) +
                               (affine ? " affine" : "");
      auto [y, mean, rstd] = F::group_norm_forward(x, G, wa, ba, 1e-5);
      auto [y32, mean32, rstd32] = F::group_norm_forward(x.to(kFloat32), G, wa, ba, 1e-5);
      expect_bits(y, y32.to(dt), what + " y");
      expect_bits(mean, mean32, what + " mean");
      expect_bits(rstd, rstd32, what + " rstd");
      expect_grads_bits(F::group_norm_backward(dy, x, G, mean, rstd, wa),
                        F::group_norm_backward(dy.to(kFloat32), x.to(kFloat32), G, mean, rstd,
                                               wa),
                        dt, affine, what);
    }
  }
}

// Through autograd, create_graph keeps the composite formula: the input's gradient is itself
// differentiable, and equals the fused kernel's within float32 rounding.
TEST(NormFused, LayerNormDoubleBackwardKeepsTheComposite) {
  manual_seed(9);
  const Tensor x = randn({3, 10}).requires_grad_(true), w = randn({10}).requires_grad_(true);
  const Tensor y = F::layer_norm(x, {10}, {.weight = w});
  const Tensor dy = randn({3, 10});
  const Tensor gx = autograd::grad({y}, {x}, {dy}, true, true)[0];
  ASSERT_TRUE(gx.requires_grad());
  ASSERT_TRUE(gx.grad_fn());
  NoGradGuard no_grad;
  auto [y2, mean, rstd] = F::layer_norm_forward(x, {10}, w, Tensor(), 1e-5);
  const Tensor fused = std::get<0>(F::layer_norm_backward(dy, x, {10}, mean, rstd, w));
  EXPECT_LT((fused - gx).abs().max().item<float>(), 1e-5f);
}

// A bfloat16/float16 layer_norm's backward allocates grad_input in the narrow type and (N)-sized
// parameter gradients: no float32 copy of the activations (input, grad_out or grad_input).
TEST_P(NormReduced, LayerNormBackwardAllocatesNoFloat32Copies) {
  const Dtype dt = GetParam();
  const int64_t M = 512, N = 768;
  const Tensor x = randn({M, N}).to(dt).requires_grad_(true);
  const Tensor w = randn({N}).requires_grad_(true), b = randn({N}).requires_grad_(true);
  const Tensor dy = randn({M, N}).to(dt);
  const Tensor y = F::layer_norm(x, {N}, {.weight = w, .bias = b});
  const int threads = get_num_threads();
  set_num_threads(1);
  const size_t before = cpu::allocator_stats().allocated_bytes;
  cpu::reset_peak_allocated_bytes();
  y.backward(dy);
  const size_t peak = cpu::allocator_stats().peak_allocated_bytes - before;
  set_num_threads(threads);
  ASSERT_EQ(x.grad().dtype(), dt);
  ASSERT_EQ(w.grad().dtype(), kFloat32);
  const size_t grad_bytes = size_t(M * N) * 2, float_copy = size_t(M * N) * 4;
  EXPECT_GE(peak, grad_bytes) << "the allocator did not see the backward's own allocations";
  EXPECT_LT(peak, grad_bytes + float_copy / 4);
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

// ── against PyTorch 1.13 (tests/golden/gen_norm_reduced.py) ──

// One golden case's op through autograd: forward on the case's inputs (weight and bias in the
// input's dtype, leaves requiring grad), backward with its grad_out.
void check_golden_case(const nlohmann::json& c) {
  const std::string op = c["op"], what = op + " " + c["dtype"].get<std::string>() + " " +
                                          c["name"].get<std::string>();
  const auto leaf = [&](const char* k) {
    return c.contains(k) ? test::golden_tensor(c[k]).requires_grad_(true) : Tensor();
  };
  const Tensor x = leaf("input"), w = leaf("weight"), b = leaf("bias");
  const Tensor dy = test::golden_tensor(c["grad_out"]);
  const nlohmann::json& a = c["args"];
  Tensor y;
  if (op == "layer_norm")
    y = F::layer_norm(x, a["normalized_shape"].get<std::vector<int64_t>>(),
                      {.weight = w, .bias = b, .eps = a["eps"]});
  else if (op == "rms_norm")
    y = F::rms_norm(x, a["normalized_shape"].get<std::vector<int64_t>>(),
                    {.weight = w, .eps = a["eps"].get<double>()});
  else
    y = F::group_norm(x, a["num_groups"], {.weight = w, .bias = b, .eps = a["eps"]});
  y.backward(dy);
  // Both sides compute in float32 (PyTorch natively or on widened tensors) and round once, but
  // in different orders: a result may land on the neighbouring narrow value, and the gradients'
  // cancellations (dy w - mean - xhat mean) leave errors of a float32 ulp of their terms, which
  // the narrow type's ulp at the tensor's largest magnitude bounds.
  const Dtype dt = test::dtype_named(c["dtype"]);
  const auto close = [&](const Tensor& got, const char* k) {
    ASSERT_EQ(got.dtype(), dt) << what << " " << k;
    const double top = test::golden_tensor(c[k]).to(kFloat64).abs().max().item<double>();
    test::expect_golden_close(got, c[k], what + " " + k, 1.0 / (dt == kBFloat16 ? 128 : 1024),
                              test::ulp(top, dt));
  };
  close(y, "out");
  close(x.grad(), "grad_input");
  if (w.defined()) close(w.grad(), "grad_weight");
  if (b.defined()) close(b.grad(), "grad_bias");
}

TEST(NormReducedGolden, AgainstPyTorch) {
  const nlohmann::json table = test::load_golden("norm_reduced.json");
  ASSERT_GE(table["cases"].size(), 20u);
  for (const nlohmann::json& c : table["cases"]) check_golden_case(c);
}

INSTANTIATE_TEST_SUITE_P(HalfTypes, NormReduced, ::testing::Values(kBFloat16, kFloat16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace ember
