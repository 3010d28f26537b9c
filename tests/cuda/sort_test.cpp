// The CUDA sort and topk kernels (src/backend/cuda/sort.cu) against the CPU's along every dim,
// ascending and descending, with ties and NaNs, in float32, float64, float16, bfloat16 and int64
// (the stable sort: indices included); and the selections (kthvalue, median, nanmedian, mode). Skips with "no CUDA device" on a machine without one.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <string>

#include "cuda/op_support.h"
#include "test_support.h"

namespace ember {
namespace {

using namespace cuda_test;

class CudaSort : public ::testing::TestWithParam<Dtype> {};

TEST_P(CudaSort, SortAndTopkMatchTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Dtype dtype = GetParam();
  Tensor x = ((arange(30 * 50 * 7, {.dtype = kInt64}) * 5 % 17) - 8).to(kFloat64);
  if (dtype != kInt64) x = x.masked_fill(arange(30 * 50 * 7) % 11 == 3, NAN);
  x = x.reshape({30, 50, 7}).to(dtype);
  for (int64_t dim : {0, 1, 2})
    for (bool descending : {false, true}) {
      const std::string what = std::string(dtype_name(dtype)) + " dim " + std::to_string(dim) +
                               (descending ? " descending" : "");
      const auto [vc, ic] = sort(x, dim, descending, true);
      const auto [vg, ig] = sort(x.to(gpu), dim, descending, true);
      EXPECT_TRUE(allclose(host(vg), host(vc), 0, 0, true)) << what;
      EXPECT_TRUE(ig.cpu().equal(ic)) << what;
    }
  const Tensor distinct = (arange(30 * 50, {.dtype = kInt64}) * 37 % 1501).reshape({30, 50});
  const auto [tc, jc] = distinct.to(dtype).topk(5, 1);
  const auto [tg, jg] = distinct.to(dtype).to(gpu).topk(5, 1);
  EXPECT_TRUE(host(tg).equal(host(tc)));
  EXPECT_TRUE(jg.cpu().equal(jc));
}

// Medians break ties by index on both sides (indices equal); kthvalue and mode report some
// element equal to the CPU's value.
TEST_P(CudaSort, SelectionsMatchTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Dtype dtype = GetParam();
  Tensor x = ((arange(30 * 50 * 7, {.dtype = kInt64}) * 5 % 17) - 8).to(kFloat64);
  if (dtype != kInt64) x = x.masked_fill(arange(30 * 50 * 7) % 13 == 3, NAN);
  x = x.reshape({30, 50, 7}).to(dtype);
  const Tensor xg = x.to(gpu);
  for (int64_t dim : {0, 1, 2}) {
    const std::string what = std::string(dtype_name(dtype)) + " dim " + std::to_string(dim);
    const auto [mc, ic] = median(x, dim);
    const auto [mg, ig] = median(xg, dim);
    EXPECT_TRUE(allclose(host(mg), host(mc), 0, 0, true) && ig.cpu().equal(ic)) << what;
    const auto [nc, jc] = nanmedian(x, dim);
    const auto [ng, jg] = nanmedian(xg, dim);
    EXPECT_TRUE(allclose(host(ng), host(nc), 0, 0, true) && jg.cpu().equal(jc)) << what;
    const auto [kc, kic] = kthvalue(x, 4, dim);
    const auto [kg, kig] = kthvalue(xg, 4, dim);
    EXPECT_TRUE(allclose(host(kg), host(kc), 0, 0, true)) << what;
    EXPECT_TRUE(allclose(host(x.gather(dim, kig.cpu().unsqueeze(dim)).squeeze(dim)), host(kc), 0,
                         0, true))
        << what;
    const Tensor y = x.masked_fill(x.isnan(), 0);
    const auto [dc, dic] = mode(y, dim);
    const auto [dg, dig] = mode(y.to(gpu), dim);
    EXPECT_TRUE(host(dg).equal(host(dc))) << what;
    EXPECT_TRUE(host(y.gather(dim, dig.cpu().unsqueeze(dim)).squeeze(dim)).equal(host(dc))) << what;
  }
  EXPECT_TRUE(allclose(host(median(xg)), host(median(x)), 0, 0, true));
  EXPECT_TRUE(allclose(host(nanmedian(xg)), host(nanmedian(x)), 0, 0, true));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaSort,
                         ::testing::Values(kFloat32, kFloat64, kFloat16, kBFloat16, kInt64),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace ember
