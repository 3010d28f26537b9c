// The CUDA layer_norm and rms_norm kernels (src/backend/cuda/norm_body.cuh) run by their CPU
// emulation over launches planned as the device's are (norm_plan.cpp), against the CPU backend's
// kernels, without a GPU: forward (y, mean, rstd) and the fused backward's two passes, in every
// floating dtype, with and without weight and bias, rows shorter and longer than a block (tails,
// idle threads), more rows than the grid, and a mean far from 0.
//
// Tolerances: neither side sums in the other's order (the bound of cuda_bounds.h). Each comparison
// propagates those bounds through the formula, plus a few eps for the roundings around it and half
// an ulp of a float16/bfloat16 result, which both sides round once.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "backend/backend.h"
#include "backend/cuda/emulation.h"
#include "backend/cuda/norm_plan.h"
#include "cuda_bounds.h"
#include "test_support.h"

namespace ember::cuda {
namespace {

using namespace test_bounds;

constexpr Dtype kFloating[] = {kFloat32, kFloat64, kFloat16, kBFloat16};

const backend::NormKernels& cpu() { return backend::backend_for(kCPU)->norm; }

/// The spacing at 1 of `dtype`: half an ulp of a value rounded to it, relative.
double store_eps(Dtype dtype) {
  return dtype == kFloat16 ? 0x1p-10 : dtype == kBFloat16 ? 0x1p-7 : 0.0;
}
Dtype opmath(Dtype dtype) { return dtype == kFloat64 ? kFloat64 : kFloat32; }

/// (rows, cols) values: sin waves of amplitude 3 around `offset`, as `dtype`.
Tensor wavy(int64_t rows, int64_t cols, Dtype dtype, double phase, double offset = 0) {
  return ((arange(rows * cols, {.dtype = kFloat64}) * 0.37 + phase).sin() * 3 + offset)
      .reshape({rows, cols})
      .to(dtype);
}

struct Case {
  int64_t M, N;
  bool weight, bias;
  double offset;
  uint32_t blocks = 0;  // 0: the plan's grid
};

// N = 300: 256 threads, two elements for some; 45: 64 threads, 19 of them idle; a mean of 40
// with a spread of 3; 9 rows in a grid of 4 blocks.
const Case kCases[] = {{7, 300, true, true, 0},
                       {5, 45, false, false, 0},
                       {6, 300, true, false, 40},
                       {9, 45, false, true, 0, 4}};

/// The forward's outputs {y, mean (undefined for rms_norm), rstd} against the CPU's for x read
/// as (M, N) rows, |weight| and |bias| per element of a row ((N) or (M, N)): the mean is off by
/// at most k e mean|x|, which moves every (x - mean) rstd by that rstd; var and so rstd are off
/// by k e relative (+4 for rsqrt's ulps and the CPU's roundings).
void expect_forward(const std::array<Tensor, 3>& got, const std::array<Tensor, 3>& want,
                    const Tensor& x, const Tensor& wabs, const Tensor& babs, uint32_t threads,
                    const std::string& what) {
  const auto& [y, mean, rstd] = want;
  const Dtype dtype = x.dtype();
  const double e = acc_eps(dtype), k = depth(x.size(1), threads);
  const Tensor dmean = f64(x).abs().mean(1, true) * (k * e);
  if (mean.defined())
    expect_within(got[1], mean, dmean.squeeze(1) + f64(mean).abs() * e, what + " mean");
  expect_within(got[2], rstd, f64(rstd).abs() * ((k + 4) * e), what + " rstd");
  const Tensor yabs = f64(y).abs();
  expect_within(got[0], y,
                (mean.defined() ? dmean : dmean * 0) * f64(rstd).unsqueeze(1) * wabs +
                    (yabs + babs) * ((k + 6) * e) + yabs * store_eps(dtype),
                what + " y");
}

/// The backward's {grad_input, grad_weight, grad_bias} against the CPU's for x and dy read as
/// (M, N) rows with weights w ((N) or (M, N), float64), the saved mean (undefined for rms_norm)
/// and rstd (M); `channels` sums an (M, N) tensor per channel, over `count` elements each.
template <class Channels>
void expect_backward(const std::array<Tensor, 3>& got, const std::array<Tensor, 3>& want,
                     const Tensor& x, const Tensor& dy, const Tensor& w, const Tensor& mean,
                     const Tensor& rstd, uint32_t threads, const Channels& channels, int64_t count,
                     const std::string& what) {
  const auto& [gi, gw, gb] = want;
  const Dtype dtype = x.dtype();
  const double e = acc_eps(dtype), k = depth(x.size(1), threads);
  const Tensor r = f64(rstd).unsqueeze(1);
  const Tensor d =
      f64(x) - (mean.defined() ? f64(mean).unsqueeze(1) : zeros({}, {.dtype = kFloat64}));
  const Tensor g = f64(dy) * w;
  // dx = (g - d k - Σg / N) rstd with k = Σ g d rstd² / N: the sums' bounds, carried.
  const Tensor dsum_g = g.abs().mean(1, true) * (k * e);
  const Tensor dk = (g * d).abs().mean(1, true) * (k * e) * r * r;
  const Tensor gia = f64(gi).abs();
  expect_within(
      got[0], gi,
      (d.abs() * dk + dsum_g) * r + (g.abs() * r + gia) * (8 * e) + gia * store_eps(dtype),
      what + " grad_input");
  // A channel's elements in sequence on the device, in blocks on the CPU.
  const double kc = double(count) + 2;
  if (gw.defined())
    expect_within(got[1], gw, channels((f64(dy) * d * r).abs()) * (kc * e) + f64(gw).abs() * 4 * e,
                  what + " grad_weight");
  if (gb.defined())
    expect_within(got[2], gb, channels(f64(dy).abs()) * (kc * e), what + " grad_bias");
}

TEST(CudaNormPlan, LayerAndRmsNormForwardMatchTheCpu) {
  for (const Dtype dtype : kFloating)
    for (const Case& c : kCases)
      for (const bool rms : {false, true}) {
        const Dtype cd = opmath(dtype);
        const Tensor x = wavy(c.M, c.N, dtype, 0.3, c.offset);
        const Tensor w = c.weight ? wavy(1, c.N, cd, 1.1).reshape({c.N}) : Tensor();
        const Tensor b = c.bias && !rms ? wavy(1, c.N, cd, 2.3).reshape({c.N}) : Tensor();
        const double eps = 1e-5;
        auto outputs = [&] {
          return std::array<Tensor, 3>{empty({c.M, c.N}, {.dtype = dtype}),
                                       rms ? Tensor() : empty({c.M}, {.dtype = cd}),
                                       empty({c.M}, {.dtype = cd})};
        };
        const auto [y, mean, rstd] = outputs();
        if (rms)
          cpu().rms_norm(y, rstd, x, w, c.M, c.N, eps);
        else
          cpu().layer_norm(y, mean, rstd, x, w, b, c.M, c.N, eps);
        const auto [gy, gmean, grstd] = outputs();
        kernels::RowNormLaunch l = plan_row_norm_launch(gy, gmean, grstd, x, w, b, c.M, c.N, eps);
        if (c.blocks) l.blocks = c.blocks;
        kernels::emulate_row_norm(l);

        const std::string what = std::string(dtype_name(dtype)) +
                                 (rms ? " rms_norm" : " layer_norm") + " N " + std::to_string(c.N) +
                                 " offset " + std::to_string(c.offset);
        const Tensor wabs = w.defined() ? f64(w).abs() : ones({c.N}, {.dtype = kFloat64});
        const Tensor babs = b.defined() ? f64(b).abs() : zeros({c.N}, {.dtype = kFloat64});
        expect_forward({gy, gmean, grstd}, {y, mean, rstd}, x, wabs, babs, l.threads, what);
      }
}

// (3, 6, 2, 5) in 2 and 3 groups (rows of 30 and 20: channels of 10 per row, 3 or 2 of them),
// with and without per-channel weight and bias, a mean far from 0 in one group; forward and the
// fused backward.
TEST(CudaNormPlan, GroupNormMatchesTheCpu) {
  for (const Dtype dtype : kFloating)
    for (const int64_t G : {2, 3})
      for (const bool affine : {false, true}) {
        const Dtype cd = opmath(dtype);
        const Tensor at = arange(180, {.dtype = kFloat64}).reshape({3, 60});
        const Tensor far =
            (at >= 80).to(kFloat64) * (at < 100).to(kFloat64) * 30;  // channels 2-3 of n 1
        const Tensor x = (wavy(3, 60, kFloat64, 0.3) + far).reshape({3, 6, 2, 5}).to(dtype);
        const Tensor w = affine ? wavy(1, 6, cd, 1.1).reshape({6}) : Tensor();
        const Tensor b = affine ? wavy(1, 6, cd, 2.3).reshape({6}) : Tensor();
        auto outputs = [&] {
          return std::array<Tensor, 3>{empty({3, 6, 2, 5}, {.dtype = dtype}),
                                       empty({3, G}, {.dtype = cd}), empty({3, G}, {.dtype = cd})};
        };
        const auto [y, mean, rstd] = outputs();
        cpu().group_norm(y, mean, rstd, x, w, b, G, 1e-5);
        const auto [gy, gmean, grstd] = outputs();
        const kernels::RowNormLaunch l = plan_group_norm_launch(gy, gmean, grstd, x, w, b, G, 1e-5);
        kernels::emulate_row_norm(l);
        // Each row's parameters: channel c repeated over its 10 elements.
        auto per_row = [&](const Tensor& p, double absent) {
          const Tensor c = p.defined() ? f64(p).abs() : full({6}, absent, {.dtype = kFloat64});
          return c.reshape({1, 6, 1}).expand({3, 6, 10}).reshape({3 * G, 60 / G});
        };
        const std::string what =
            std::string(dtype_name(dtype)) + " G " + std::to_string(G) + (affine ? " affine" : "");
        expect_forward({gy.reshape({3 * G, 60 / G}), gmean.flatten(), grstd.flatten()},
                       {y.reshape({3 * G, 60 / G}), mean.flatten(), rstd.flatten()},
                       x.reshape({3 * G, 60 / G}), per_row(w, 1), per_row(b, 0), l.threads, what);

        const Tensor dy = wavy(3, 60, dtype, 0.9).reshape({3, 6, 2, 5});
        auto grads = [&] {
          return std::array<Tensor, 3>{empty({3, 6, 2, 5}, {.dtype = dtype}),
                                       affine ? empty({6}, {.dtype = cd}) : Tensor(),
                                       empty({6}, {.dtype = cd})};
        };
        const auto [gi, gw, gb] = grads();
        cpu().group_norm_backward(gi, gw, gb, x, dy, mean, rstd, w, G);
        const auto [egi, egw, egb] = grads();
        const auto passes =
            plan_group_norm_backward_launches(egi, egw, egb, x, dy, mean, rstd, w, G);
        for (const auto& pass : passes) kernels::emulate_row_norm_backward(pass);
        const Tensor w_rows =
            w.defined() ? f64(w).reshape({1, 6, 1}).expand({3, 6, 10}).reshape({3 * G, 60 / G})
                        : ones({60 / G}, {.dtype = kFloat64});
        auto rows = [&](const Tensor& t) { return t.reshape({3 * G, 60 / G}); };
        expect_backward(
            {rows(egi), egw, egb}, {rows(gi), gw, gb}, rows(x), rows(dy), w_rows, mean.flatten(),
            rstd.flatten(), passes[0].threads,
            [&](const Tensor& t) {
              return t.reshape({3, 6, 10}).sum({0, 2});
            },
            30, what);
      }
}

TEST(CudaNormPlan, FusedBackwardMatchesTheCpu) {
  for (const Dtype dtype : kFloating)
    for (const Case& c : kCases)
      for (const bool rms : {false, true}) {
        const Dtype cd = opmath(dtype);
        const Tensor x = wavy(c.M, c.N, dtype, 0.3, c.offset), dy = wavy(c.M, c.N, dtype, 0.9);
        const Tensor w = c.weight ? wavy(1, c.N, cd, 1.1).reshape({c.N}) : Tensor();
        // The saved statistics, from the CPU's forward.
        const Tensor mean = rms ? Tensor() : empty({c.M}, {.dtype = cd});
        const Tensor rstd = empty({c.M}, {.dtype = cd}), y = empty({c.M, c.N}, {.dtype = dtype});
        if (rms)
          cpu().rms_norm(y, rstd, x, w, c.M, c.N, 1e-5);
        else
          cpu().layer_norm(y, mean, rstd, x, w, Tensor(), c.M, c.N, 1e-5);
        auto grads = [&] {
          return std::array<Tensor, 3>{empty({c.M, c.N}, {.dtype = dtype}),
                                       c.weight ? empty({c.N}, {.dtype = cd}) : Tensor(),
                                       rms ? Tensor() : empty({c.N}, {.dtype = cd})};
        };
        const auto [gi, gw, gb] = grads();
        cpu().layer_norm_backward(gi, gw, gb, x, dy, mean, rstd, w, c.M, c.N);
        const auto [egi, egw, egb] = grads();
        auto passes =
            plan_row_norm_backward_launches(egi, egw, egb, x, dy, mean, rstd, w, c.M, c.N);
        if (c.blocks) passes[0].blocks = c.blocks;
        for (const auto& pass : passes) kernels::emulate_row_norm_backward(pass);

        const std::string what = std::string(dtype_name(dtype)) +
                                 (rms ? " rms_norm" : " layer_norm") + " N " + std::to_string(c.N) +
                                 " offset " + std::to_string(c.offset);
        expect_backward(
            {egi, egw, egb}, {gi, gw, gb}, x, dy,
            w.defined() ? f64(w) : ones({c.N}, {.dtype = kFloat64}), mean, rstd, passes[0].threads,
            [](const Tensor& t) { return t.sum(0); }, c.M, what);
      }
}

TEST(CudaNormPlan, InputsOutsideTheKernelsLayoutAreRefused) {
  const Tensor x = zeros({4, 6}), rstd = empty({4});
  EXPECT_ERROR(plan_row_norm_launch(empty({4, 6}), Tensor(), rstd, x.t().contiguous().t(), Tensor(),
                                    Tensor(), 4, 6, 1e-5),
               "expected contiguous operands");
  EXPECT_ERROR(plan_row_norm_launch(empty({4, 6}), Tensor(), empty({4}, {.dtype = kFloat64}), x,
                                    Tensor(), Tensor(), 4, 6, 1e-5),
               "statistics and parameters in float32");
  const Tensor ints = zeros({4, 6}, {.dtype = kInt64});
  EXPECT_ERROR(plan_row_norm_launch(ints, Tensor(), rstd, ints, Tensor(), Tensor(), 4, 6, 1e-5),
               "the cuda backend has no int64 kernel yet");
}

}  // namespace
}  // namespace ember::cuda
