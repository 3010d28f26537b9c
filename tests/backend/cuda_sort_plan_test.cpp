// The CUDA sort and topk kernels (src/backend/cuda/sort_body.cuh) run by their CPU emulation over
// launches planned as the device's are (sort_plan.cpp), against the CPU backend, without a GPU:
// every line of a 3-d tensor along each dim, ascending and descending, with ties and NaNs, in
// every dtype the kernels take; line lengths that are not powers of two (Note [Bitonic sort of
// any length]), a line longer than a warp's share, more lines than the grid; topk; and the
// selections (kthvalue, median, nanmedian, mode, the median of all elements).
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "backend/cuda/emulation.h"
#include "backend/cuda/sort_plan.h"
#include "test_support.h"

namespace ember::cuda {
namespace {

/// (a, b, c) values with many ties (17 distinct) and, for the floating dtypes, a NaN every
/// 11th element, as `dtype`.
Tensor tied(int64_t a, int64_t b, int64_t c, Dtype dtype) {
  Tensor t = ((arange(a * b * c, {.dtype = kInt64}) * 5 % 17) - 8).to(kFloat64);
  if (is_floating_point(dtype)) t = t.masked_fill(arange(a * b * c) % 11 == 3, NAN);
  return t.reshape({a, b, c}).to(dtype);
}

std::tuple<Tensor, Tensor> sorted(const Tensor& self, int64_t dim, bool descending,
                                  uint32_t blocks = 0) {
  const Tensor values = empty_like(self);
  const Tensor indices = empty(self.sizes(), {.dtype = kInt64});
  kernels::SortLaunch l = plan_sort_launch(values, indices, self, dim, descending);
  if (blocks) l.blocks = blocks;
  kernels::emulate_sort(l);
  return {values, indices};
}

// Equal values keep their input order (the stable sort), so the indices are the CPU's too.
TEST(CudaSortPlan, SortMatchesTheCpusStableSort) {
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64}) {
    const Tensor x = tied(5, 37, 6, dtype);
    for (const int64_t dim : {0, 1, 2})
      for (const bool descending : {false, true}) {
        const auto [values, indices] = sorted(x, dim, descending);
        const auto [want_values, want_indices] = sort(x, dim, descending, /*stable=*/true);
        const std::string what = std::string(dtype_name(dtype)) + " dim " + std::to_string(dim) +
                                 (descending ? " descending" : "");
        EXPECT_TRUE(allclose(values, want_values, 0, 0, /*equal_nan=*/true)) << what;
        EXPECT_TRUE(indices.equal(want_indices)) << what;
      }
  }
}

// One line of 1000 (padded to 1024: 512 threads, many stages) and 40 lines of 25 in a grid of
// 3 blocks.
TEST(CudaSortPlan, LongLinesAndSmallGridsSortEveryLine) {
  const Tensor one = tied(1, 1000, 1, kFloat32).reshape({1000});
  const auto [v1, i1] = sorted(one, 0, false);
  const auto [w1, j1] = sort(one, 0, false, true);
  EXPECT_TRUE(allclose(v1, w1, 0, 0, true));
  EXPECT_TRUE(i1.equal(j1));
  const Tensor many = tied(40, 25, 1, kFloat64).reshape({40, 25});
  const auto [v2, i2] = sorted(many, 1, true, 3);
  const auto [w2, j2] = sort(many, 1, true, true);
  EXPECT_TRUE(allclose(v2, w2, 0, 0, true));
  EXPECT_TRUE(i2.equal(j2));
}

// Lines of distinct values (so the k chosen are the CPU's, indices included), largest and
// smallest, along a middle dim and the last.
TEST(CudaSortPlan, TopkMatchesTheCpu) {
  for (const Dtype dtype : {kFloat32, kFloat16, kInt64}) {
    const Tensor x =
        (arange(4 * 30 * 5, {.dtype = kInt64}) * 37 % 601).reshape({4, 30, 5}).to(dtype);
    for (const int64_t dim : {1, 2})
      for (const bool largest : {true, false}) {
        const int64_t k = dim == 1 ? 7 : 3;
        const auto [want_values, want_indices] = x.topk(k, dim, largest, true);
        const Tensor values = empty_like(want_values), indices = empty_like(want_indices);
        kernels::emulate_sort(plan_topk_launch(values, indices, x, k, dim, largest, empty_like(x),
                                               empty(x.sizes(), {.dtype = kInt64})));
        const std::string what = std::string(dtype_name(dtype)) + " dim " + std::to_string(dim) +
                                 (largest ? " largest" : " smallest");
        EXPECT_TRUE(values.equal(want_values)) << what;
        EXPECT_TRUE(indices.equal(want_indices)) << what;
      }
  }
}

/// A selection by the emulated kernel: (values, indices) along dim, k kept for kthvalue.
std::tuple<Tensor, Tensor> selected(const char* op, kernels::Pick pick, const Tensor& self,
                                    int64_t dim, int64_t kth = 0) {
  std::vector<int64_t> sizes = self.sizes().vec();
  sizes[size_t(dim)] = 1;
  const Tensor values = empty(sizes, {.dtype = self.dtype()});
  const Tensor indices = empty(sizes, {.dtype = kInt64});
  kernels::emulate_sort(plan_select_launch(op, pick, values, indices, self, dim, kth,
                                           empty_like(self), empty(self.sizes(), {.dtype = kInt64})));
  return {values.squeeze(dim), indices.squeeze(dim)};
}

// Where the CPU breaks ties by index (median, nanmedian: Note [Matching PyTorch's ties]) the
// indices are the CPU's; where its order among equal values is its quickselect's or std::sort's
// (kthvalue, mode), the value is the CPU's and the index one of an element equal to it. Lines
// with ties and NaNs along each dim, every dtype the sort takes.
TEST(CudaSortPlan, SelectionsMatchTheCpu) {
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64}) {
    const Tensor x = tied(5, 37, 6, dtype);
    for (const int64_t dim : {0, 1, 2}) {
      const std::string what = std::string(dtype_name(dtype)) + " dim " + std::to_string(dim);
      const auto points_at_value = [&](const Tensor& values, const Tensor& indices) {
        const Tensor at = x.gather(dim, indices.unsqueeze(dim)).squeeze(dim);
        return allclose(at, values, 0, 0, /*equal_nan=*/true);
      };
      const int64_t k = x.size(dim) / 3 + 1;
      const auto [kv, ki] = selected("kthvalue", kernels::Pick::kth, x, dim, k);
      const auto [want_kv, want_ki] = kthvalue(x, k, dim);
      EXPECT_TRUE(allclose(kv, want_kv, 0, 0, true)) << "kthvalue " << what;
      EXPECT_TRUE(points_at_value(kv, ki)) << "kthvalue " << what;

      const auto [mv, mi] = selected("median", kernels::Pick::median, x, dim);
      const auto [want_mv, want_mi] = median(x, dim);
      EXPECT_TRUE(allclose(mv, want_mv, 0, 0, true)) << "median " << what;
      EXPECT_TRUE(mi.equal(want_mi)) << "median " << what;

      const auto [nv, ni] = selected("nanmedian", kernels::Pick::nanmedian, x, dim);
      const auto [want_nv, want_ni] = nanmedian(x, dim);
      EXPECT_TRUE(allclose(nv, want_nv, 0, 0, true)) << "nanmedian " << what;
      EXPECT_TRUE(ni.equal(want_ni)) << "nanmedian " << what;

      // mode without NaNs: the CPU's std::sort has no order for them (no strict weak ordering),
      // so its runs through NaNs are its sort's accident; here each NaN is a run of its own.
      const Tensor y = x.masked_fill(x.isnan(), 0);
      const auto [dv, di] = selected("mode", kernels::Pick::mode, y, dim);
      const auto [want_dv, want_di] = mode(y, dim);
      EXPECT_TRUE(dv.equal(want_dv)) << "mode " << what;
      EXPECT_TRUE(y.gather(dim, di.unsqueeze(dim)).squeeze(dim).equal(dv)) << "mode " << what;
    }
    // Distinct values: kthvalue's index is the CPU's too.
    const Tensor distinct = (arange(4 * 30, {.dtype = kInt64}) * 37 % 601).reshape({4, 30}).to(dtype);
    const auto [kv, ki] = selected("kthvalue", kernels::Pick::kth, distinct, 1, 9);
    const auto [want_kv, want_ki] = kthvalue(distinct, 9, 1);
    EXPECT_TRUE(kv.equal(want_kv) && ki.equal(want_ki)) << dtype_name(dtype);
  }
}

// The median of all elements: with and without NaNs, NaN for an empty floating tensor, refused
// for an empty integer one; and k out of range.
TEST(CudaSortPlan, MedianOfAllElementsMatchesTheCpu) {
  const auto all = [](const Tensor& self, bool ignore_nan) {
    const Tensor out = empty({}, {.dtype = self.dtype()});
    kernels::emulate_sort(plan_select_launch(
        "median", ignore_nan ? kernels::Pick::nanmedian : kernels::Pick::median, out, Tensor(),
        self, -1, 0, empty_like(self), empty(self.sizes(), {.dtype = kInt64})));
    return out;
  };
  for (const Dtype dtype : {kFloat32, kFloat16, kInt64}) {
    const Tensor x = tied(3, 7, 5, dtype);
    EXPECT_TRUE(allclose(all(x, false), median(x), 0, 0, true)) << dtype_name(dtype);
    EXPECT_TRUE(allclose(all(x, true), nanmedian(x), 0, 0, true)) << dtype_name(dtype);
  }
  EXPECT_TRUE(all(empty({0}), false).isnan().item<bool>());
  const Tensor none = empty({0}, {.dtype = kInt32});
  EXPECT_ERROR(all(none, false), "median() of an empty tensor is undefined for dtype torch.int32");
  const Tensor x = tied(2, 5, 1, kFloat32).reshape({2, 5});
  EXPECT_ERROR(selected("kthvalue", kernels::Pick::kth, x, 1, 6), "expected k in [1, 5], got 6");
}

TEST(CudaSortPlan, DtypesWithoutAKernelAreRefused) {
  const Tensor b = zeros({4}, {.dtype = kBool}), i8 = zeros({4}, {.dtype = kInt8});
  const Tensor idx = empty({4}, {.dtype = kInt64});
  EXPECT_ERROR(plan_sort_launch(empty_like(b), idx, b, 0, false), "no bool kernel yet");
  EXPECT_ERROR(plan_sort_launch(empty_like(i8), idx, i8, 0, false), "no int8 kernel yet");
}

}  // namespace
}  // namespace ember::cuda
