// The CUDA batch norm kernels (src/backend/cuda/batch_norm_body.cuh) run by their CPU emulation
// over launches planned as the device's are (batch_norm_plan.cpp), against the CPU backend's
// kernels, without a GPU: the batch statistics, the normalisation and the fused backward (training
// and eval, with and without weight and bias), in every floating dtype, on (N, C, S) inputs whose
// channels are N planes apart, one of them far from 0. Tolerances: the bounds of cuda_bounds.h
// over each channel's M = N S elements, carried through each formula.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/cuda/batch_norm_plan.h"
#include "backend/cuda/emulation.h"
#include "cuda_bounds.h"
#include "test_support.h"

namespace ember::cuda {
namespace {

using namespace test_bounds;

constexpr Dtype kFloating[] = {kFloat32, kFloat64, kFloat16, kBFloat16};
constexpr int64_t N = 4, C = 5, S = 33;  // planes of 33: above kNormPlanarMin, a warp and one

const backend::NormKernels& cpu() { return backend::backend_for(kCPU)->norm; }

double store_eps(Dtype dtype) {
  return dtype == kFloat16 ? 0x1p-10 : dtype == kBFloat16 ? 0x1p-7 : 0.0;
}
Dtype opmath(Dtype dtype) { return dtype == kFloat64 ? kFloat64 : kFloat32; }

/// (N, C, S) values: sin waves of amplitude 3, channel 2 around 40.
Tensor input(Dtype dtype, double phase) {
  const Tensor far = (arange(C, {.dtype = kFloat64}) == 2).to(kFloat64).reshape({1, C, 1}) * 40;
  return ((arange(N * C * S, {.dtype = kFloat64}) * 0.37 + phase).sin() * 3)
      .reshape({N, C, S})
      .add(far)
      .to(dtype);
}

/// (C) values of the op math dtype.
Tensor per_channel(Dtype dtype, double phase) {
  return ((arange(C, {.dtype = kFloat64}) * 1.3 + phase).sin() + 1.5).to(opmath(dtype));
}

/// Sums a float64 (N, C, S) tensor per channel.
Tensor channel_sums(const Tensor& t) { return t.sum({0, 2}); }

/// Runs the planned passes in order.
template <size_t K>
void emulate(const std::array<kernels::BatchNormLaunch, K>& passes) {
  for (const auto& p : passes) kernels::emulate_batch_norm(p);
}

TEST(CudaBatchNormPlan, StatisticsAndNormalisationMatchTheCpu) {
  for (const Dtype dtype : kFloating)
    for (const bool affine : {false, true}) {
      const std::string what = std::string(dtype_name(dtype)) + (affine ? " affine" : "");
      const Tensor x = input(dtype, 0.3);
      const Tensor mean = empty({C}, {.dtype = kFloat64}), var = empty_like(mean);
      cpu().batch_norm_stats(x, mean, var);
      const Tensor gmean = empty_like(mean), gvar = empty_like(mean);
      const kernels::BatchNormLaunch stats = plan_batch_norm_stats_launch(x, gmean, gvar);
      kernels::emulate_batch_norm(stats);
      // The mean is off by k e mean|x|; the variance by k e var, plus twice that times mean|d|.
      const double e = acc_eps(dtype), k = depth(N * S, stats.threads);
      const Tensor dmean = channel_sums(f64(x).abs()) / double(N * S) * (k * e);
      const Tensor dev = channel_sums((f64(x) - mean.reshape({1, C, 1})).abs()) / double(N * S);
      expect_within(gmean, mean, dmean, what + " mean");
      expect_within(gvar, var, var * (k * e) + dmean * dev * 2, what + " var");

      // The same statistics on both sides: the per-channel constants are computed in double on
      // both, so save_mean and save_invstd are the same bits; y rounds twice more at most.
      const Tensor w = affine ? per_channel(dtype, 0.1) : Tensor();
      const Tensor b = affine ? per_channel(dtype, 2.1) - 1.5 : Tensor();
      auto outputs = [&] {
        return std::array<Tensor, 3>{empty_like(x), empty({C}, {.dtype = opmath(dtype)}),
                                     empty({C}, {.dtype = opmath(dtype)})};
      };
      const auto [y, sm, si] = outputs();
      cpu().batch_norm(y, sm, si, x, w, b, mean, var, 1e-5);
      const auto [gy, gsm, gsi] = outputs();
      std::vector<double> scratch(2 * C);
      emulate(plan_batch_norm_launches(gy, gsm, gsi, x, w, b, mean, var, 1e-5, scratch.data()));
      EXPECT_TRUE(gsm.equal(sm)) << what;
      EXPECT_TRUE(gsi.equal(si)) << what;
      const Tensor scale = f64(si) * (w.defined() ? f64(w) : ones({C}, {.dtype = kFloat64}));
      const Tensor terms = (f64(x) * scale.reshape({1, C, 1})).abs() + f64(y).abs();
      expect_within(gy, y, terms * (2 * e) + f64(y).abs() * store_eps(dtype), what + " y");
    }
}

TEST(CudaBatchNormPlan, FusedBackwardMatchesTheCpu) {
  for (const Dtype dtype : kFloating)
    for (const bool training : {true, false})
      for (const bool affine : {false, true}) {
        const std::string what = std::string(dtype_name(dtype)) +
                                 (training ? " training" : " eval") + (affine ? " affine" : "");
        const Tensor x = input(dtype, 0.3), dy = input(dtype, 1.9) - 0.5;
        const Tensor mean = empty({C}, {.dtype = kFloat64}), var = empty_like(mean);
        cpu().batch_norm_stats(x, mean, var);
        const Tensor w = affine ? per_channel(dtype, 0.1) : Tensor();
        const Tensor sm = empty({C}, {.dtype = opmath(dtype)}), si = empty_like(sm);
        cpu().batch_norm(empty_like(x), sm, si, x, w, Tensor(), mean, var, 1e-5);
        auto grads = [&] {
          return std::array<Tensor, 3>{empty_like(x), affine ? empty_like(sm) : Tensor(),
                                       empty_like(sm)};
        };
        const auto [gi, gw, gb] = grads();
        cpu().batch_norm_backward(gi, gw, gb, x, dy, sm, si, w, training);
        const auto [egi, egw, egb] = grads();
        std::vector<double> scratch(2 * C);
        const auto passes = plan_batch_norm_backward_launches(egi, egw, egb, x, dy, sm, si, w,
                                                              training, scratch.data());
        emulate(passes);

        const double e = acc_eps(dtype), k = depth(N * S, passes[0].threads), M = double(N * S);
        const Tensor r = f64(si).reshape({1, C, 1});
        const Tensor d = f64(x) - f64(sm).reshape({1, C, 1});
        const Tensor g = f64(dy);
        const Tensor sc =
            r * (w.defined() ? f64(w).reshape({1, C, 1}) : ones({}, {.dtype = kFloat64}));
        // Σdy and Σdy d are off by k e times the sums of their terms' magnitudes.
        const Tensor dsum = (channel_sums(g.abs()) * (k * e)).reshape({1, C, 1});
        const Tensor ddot = (channel_sums((g * d).abs()) * (k * e)).reshape({1, C, 1});
        const Tensor gia = f64(gi).abs();
        const Tensor dgi = training ? (d.abs() * ddot * r * r + dsum) / M * sc.abs() : gia * 0;
        expect_within(egi, gi, dgi + (g.abs() * sc.abs() + gia) * (8 * e) + gia * store_eps(dtype),
                      what + " grad_input");
        if (gw.defined())
          expect_within(egw, gw, ddot.flatten() * f64(si) + f64(gw).abs() * (4 * e),
                        what + " grad_weight");
        expect_within(egb, gb, dsum.flatten() + f64(gb).abs() * e, what + " grad_bias");
      }
}

TEST(CudaBatchNormPlan, InputsOutsideTheKernelsLayoutAreRefused) {
  const Tensor x = zeros({2, 3, 4});
  const Tensor stats32 = empty({3}), stats64 = empty({3}, {.dtype = kFloat64});
  EXPECT_ERROR(plan_batch_norm_stats_launch(x, stats32, stats32), "(C) float64 statistics");
  EXPECT_ERROR(plan_batch_norm_stats_launch(x.transpose(0, 2).contiguous().transpose(0, 2), stats64,
                                            stats64),
               "expected contiguous operands");
  const Tensor ints = zeros({2, 3, 4}, {.dtype = kInt32});
  EXPECT_ERROR(plan_batch_norm_stats_launch(ints, stats64, stats64),
               "the cuda backend has no int32 kernel yet");
}

}  // namespace
}  // namespace ember::cuda
