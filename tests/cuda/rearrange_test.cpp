// The CUDA resizing and rearranging kernels (src/backend/cuda/resize.cu, rearrange.cu) against
// the CPU's through the public ops: F::interpolate (every mode, align_corners, scale factors,
// 1-D and 2-D) and F::pad (reflect, replicate, circular, negative pads) with their backward, in
// float32, float64, float16 and bfloat16, bit for bit (the kernels compute the CPU's arithmetic
// in its order; Note [Resize backward as a gather]); flip, tril/triu, trace, searchsorted,
// one_hot, repeat_interleave and unique (over the elements and along a dim). Skips with "no
// CUDA device" on a machine without one.
#include <ember/ember.h>
#include <ember/nn/functional/conv.h>
#include <gtest/gtest.h>

#include <functional>
#include <iterator>
#include <string>

#include "cuda/op_support.h"
#include "test_support.h"

namespace ember {
namespace {

using namespace cuda_test;
namespace F = nn::functional;

class CudaResize : public ::testing::TestWithParam<Dtype> {};

/// f on the CPU and on the device, forward and backward (a weighted sum's gradient): the same
/// bits.
void expect_same(const std::function<Tensor(const Tensor&)>& f, const Tensor& x,
                 const std::string& what) {
  const Tensor xc = x.detach().requires_grad_(), xg = x.to(gpu).detach().requires_grad_();
  const Tensor yc = f(xc), yg = f(xg);
  EXPECT_TRUE(yg.device() == gpu) << what;
  EXPECT_TRUE(host(yg).equal(host(yc))) << what;
  const Tensor w = values(yc.sizes(), 0.13, x.dtype());
  (yc * w).sum().backward();
  (yg * w.to(gpu)).sum().backward();
  EXPECT_TRUE(host(xg.grad()).equal(host(xc.grad()))) << "backward, " << what;
}

TEST_P(CudaResize, InterpolateAndItsBackwardMatchTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Dtype dtype = GetParam();
  const Tensor x2 = values({2, 3, 17, 23}, 0.91, dtype), x1 = values({2, 3, 29}, 0.71, dtype);
  const F::InterpolateFuncOptions two_d[] = {
      {.size = {34, 46}},  // nearest's x2 shortcut
      {.size = {30, 11}},
      {.scale_factor = {1.7, 0.6}, .mode = "nearest-exact"},
      {.size = {30, 11}, .mode = "bilinear"},
      {.size = {30, 11}, .mode = "bilinear", .align_corners = true},
      {.scale_factor = {2.5, 1.3}, .mode = "bilinear"},
  };
  for (size_t k = 0; k < std::size(two_d); ++k)
    expect_same([&](const Tensor& t) { return F::interpolate(t, two_d[k]); }, x2,
                std::string(dtype_name(dtype)) + " 2-D case " + std::to_string(k));
  const F::InterpolateFuncOptions one_d[] = {
      {.size = 64},
      {.size = 64, .mode = "linear"},
      {.size = 10, .mode = "linear", .align_corners = true},
      {.scale_factor = 0.45, .mode = "nearest-exact"},
  };
  for (size_t k = 0; k < std::size(one_d); ++k)
    expect_same([&](const Tensor& t) { return F::interpolate(t, one_d[k]); }, x1,
                std::string(dtype_name(dtype)) + " 1-D case " + std::to_string(k));
}

TEST_P(CudaResize, PadAndItsBackwardMatchTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Dtype dtype = GetParam();
  struct Case {
    std::vector<int64_t> pad;
    const char* mode;
    std::vector<int64_t> sizes;
  };
  const Case cases[] = {
      {{3, 2}, "reflect", {2, 3, 9}},
      {{3, 2, 1, 4}, "reflect", {2, 3, 7, 9}},
      {{-2, 3, 1, -1}, "reflect", {2, 3, 7, 9}},
      {{11, 4}, "replicate", {2, 3, 6}},
      {{2, 1, 0, 3, 1, 1}, "replicate", {1, 2, 4, 5, 6}},
      {{7, 3}, "circular", {2, 3, 7}},
      {{2, -2, -1, 3}, "circular", {2, 3, 7, 9}},
      {{1, 2, 3, 0, 2, 2}, "circular", {1, 2, 4, 5, 6}},
  };
  for (const Case& c : cases) {
    std::string what = std::string(dtype_name(dtype)) + " " + c.mode + " pad";
    for (const int64_t p : c.pad) what += " " + std::to_string(p);
    expect_same([&](const Tensor& t) { return F::pad(t, c.pad, {.mode = c.mode}); },
                values(c.sizes, 0.37, dtype), what);
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaResize,
                         ::testing::Values(kFloat32, kFloat64, kFloat16, kBFloat16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

TEST(CudaRearrange, PadMovesEveryDtype) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  for (const Dtype dtype : {kInt64, kInt32, kBool, kFloat16}) {
    const Tensor x = (arange(2 * 5 * 6, {.dtype = kInt64}) * 7 % 11).to(dtype).reshape({2, 5, 6});
    const Tensor want = F::pad(x, {2, 3, 4, 1}, {.mode = "replicate"});
    EXPECT_TRUE(F::pad(x.to(gpu), {2, 3, 4, 1}, {.mode = "replicate"}).cpu().equal(want))
        << dtype_name(dtype);
  }
}

TEST(CudaRearrange, FlipTrilTriuAndTraceMatchTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt64, kInt32, kBool}) {
    const Tensor x =
        (arange(30 * 50 * 7, {.dtype = kInt64}) * 13 % 29).to(dtype).reshape({30, 50, 7});
    for (const Layout& layout : layouts()) {
      const Tensor v = layout.second(x), vg = layout.second(x.to(gpu));
      const std::string what = std::string(dtype_name(dtype)) + " " + layout.first;
      EXPECT_TRUE(vg.flip({0, 2}).cpu().equal(v.flip({0, 2}))) << "flip " << what;
      EXPECT_TRUE(vg.flip({1}).cpu().equal(v.flip({1}))) << "flip " << what;
      for (const int64_t k : {-3, 0, 2}) {
        EXPECT_TRUE(vg.tril(k).cpu().equal(v.tril(k))) << "tril " << k << " " << what;
        EXPECT_TRUE(vg.triu(k).cpu().equal(v.triu(k))) << "triu " << k << " " << what;
      }
      if (dtype == kBool) continue;  // trace takes numbers
      const Tensor m = v.select(2, 1), mg = vg.select(2, 1);
      const Tensor want = trace(m), got = trace(mg).cpu();
      if (is_integral(dtype, true))
        EXPECT_TRUE(got.equal(want)) << "trace " << what;
      else
        EXPECT_TRUE(
            allclose(got.to(kFloat64), want.to(kFloat64), tolerance(dtype), tolerance(dtype)))
            << "trace " << what;
    }
  }
}

TEST(CudaRearrange, SearchsortedOneHotAndRepeatInterleaveMatchTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64}) {
    const Tensor bd = std::get<0>((values({4, 300}, 0.77, kFloat64) * 50).to(dtype).sort(-1));
    const Tensor vals = (values({4, 1000}, 0.31, kFloat64) * 60).to(dtype);
    for (const bool right : {false, true}) {
      const SearchsortedOptions o{.right = right};
      EXPECT_TRUE(searchsorted(bd.to(gpu), vals.to(gpu), o).cpu().equal(searchsorted(bd, vals, o)))
          << dtype_name(dtype) << (right ? " right" : " left");
      EXPECT_TRUE(searchsorted(bd.select(0, 0).to(gpu), vals.to(gpu), o)
                      .cpu()
                      .equal(searchsorted(bd.select(0, 0), vals, o)))
          << dtype_name(dtype) << " 1-D boundaries";
    }
  }
  const Tensor labels = arange(5000, {.dtype = kInt64}) * 7919 % 37;
  EXPECT_TRUE(one_hot(labels.to(gpu)).cpu().equal(one_hot(labels)));
  EXPECT_TRUE(one_hot(labels.to(gpu), 50).cpu().equal(one_hot(labels, 50)));
  EXPECT_ERROR(one_hot(labels.to(gpu), 20), "Class values must be smaller than num_classes.");
  const Tensor repeats = arange(3000, {.dtype = kInt64}) * 7919 % 6;
  EXPECT_TRUE(repeat_interleave(repeats.to(gpu)).cpu().equal(repeat_interleave(repeats)));
  const Tensor x = values({3000, 2}, 0.5, kFloat32);
  EXPECT_TRUE(repeat_interleave(x.to(gpu), repeats.to(gpu), 0)
                  .cpu()
                  .equal(repeat_interleave(x, repeats, 0)));
  EXPECT_ERROR(repeat_interleave(tensor({1, -2}, kInt64).to(gpu)), "repeats can not be negative");
}

TEST(CudaRearrange, UniqueMatchesTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64}) {
    Tensor x = (arange(6000, {.dtype = kInt64}) * 7919 % 301 - 150).to(dtype).reshape({60, 100});
    if (is_floating_point(dtype)) x.select(0, 7).narrow(0, 3, 4).fill_(NAN);
    const UniqueOptions o{.return_inverse = true, .return_counts = true};
    const UniqueResult want = unique(x, o), got = unique(x.to(gpu), o);
    const std::string what = dtype_name(dtype);
    EXPECT_TRUE(allclose(got.output.cpu(), want.output, 0, 0, /*equal_nan=*/true)) << what;
    EXPECT_TRUE(got.inverse_indices.cpu().equal(want.inverse_indices)) << what;
    EXPECT_TRUE(got.counts.cpu().equal(want.counts)) << what;
  }
  // Along a dim: rows (dim 0) and columns (dim 1) of a matrix with repeated slices.
  const Tensor m = (arange(400 * 3, {.dtype = kInt64}) * 7919 % 4).reshape({400, 3});
  for (const int64_t dim : {0, 1}) {
    const UniqueOptions o{.return_inverse = true, .return_counts = true, .dim = dim};
    const UniqueResult want = unique(m, o), got = unique(m.to(gpu), o);
    EXPECT_TRUE(got.output.cpu().equal(want.output)) << "dim " << dim;
    EXPECT_TRUE(got.inverse_indices.cpu().equal(want.inverse_indices)) << "dim " << dim;
    EXPECT_TRUE(got.counts.cpu().equal(want.counts)) << "dim " << dim;
  }
}

}  // namespace
}  // namespace ember
