// The CUDA gather-family kernels (src/backend/cuda/gather.cu) against the CPU's: gather and
// scatter_add along every dim of transposed and sliced inputs, scatter_reduce, index_select, take,
// the embedding lookup and its backward, in float32, float64, float16 and bfloat16, and the CPU's
// error for an index out of range; nonzero, a boolean mask's indexing, masked_select and
// masked_scatter_. Skips with "no CUDA device" on a machine without one.
#include <ember/ember.h>
#include <ember/nn/functional/layers.h>
#include <gtest/gtest.h>

#include <string>

#include "cuda/op_support.h"
#include "test_support.h"

namespace ember {
namespace {

using namespace cuda_test;

class CudaGather : public ::testing::TestWithParam<Dtype> {};

/// (30, 50, 7) entries in [0, n), many repeats.
Tensor entries(int64_t n) {
  return (arange(30 * 50 * 7, {.dtype = kInt64}) * 5 % n).reshape({30, 50, 7});
}

TEST_P(CudaGather, GatherScatterAndIndexSelectMatchTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Dtype dtype = GetParam();
  // Small integers: scatter_add's order on the device (atomics) cannot change the sums.
  const Tensor x = (values({30, 50, 7}, 0.91, dtype) * 8).round();
  for (const auto& [name, layout] : layouts())
    for (int64_t dim : {0, 1, 2}) {
      const Tensor xc = layout(x), xg = layout(x.to(gpu));
      const Tensor idx = entries(xc.size(dim))
                             .narrow(0, 0, xc.size(0))
                             .narrow(1, 0, xc.size(1))
                             .narrow(2, 0, xc.size(2));
      const std::string what =
          std::string(dtype_name(dtype)) + " on " + name + " dim " + std::to_string(dim);
      EXPECT_TRUE(host(xg.gather(dim, idx.to(gpu))).equal(host(xc.gather(dim, idx)))) << what;
      EXPECT_TRUE(
          host(xg.scatter_add(dim, idx.to(gpu), xg)).equal(host(xc.scatter_add(dim, idx, xc))))
          << what;
      const Tensor line = idx.flatten().narrow(0, 0, 11);
      EXPECT_TRUE(host(xg.index_select(dim, line.to(gpu))).equal(host(xc.index_select(dim, line))))
          << what;
    }
  const Tensor flat = entries(2 * 30 * 50 * 7) - 30 * 50 * 7;  // negative ones from the end
  EXPECT_TRUE(host(take(x.to(gpu), flat.to(gpu))).equal(host(take(x, flat))));
  const Tensor weight = values({40, 16}, 0.3, dtype), ids = entries(40).narrow(2, 0, 3);
  const Tensor wc = weight.detach().requires_grad_(), wg = weight.to(gpu).detach().requires_grad_();
  const Tensor yc = nn::functional::embedding(ids, wc),
               yg = nn::functional::embedding(ids.to(gpu), wg);
  EXPECT_TRUE(host(yg).equal(host(yc)));
  (yc * yc).sum().backward();
  (yg * yg).sum().backward();
  EXPECT_TRUE(allclose(host(wg.grad()), host(wc.grad()), tolerance(dtype), tolerance(dtype)));
}

// Every reduction, with and without self (Note [CUDA scatter_reduce]), on small integers: sums,
// counts and the mean's one division are exact or rounded once on both sides.
TEST_P(CudaGather, ScatterReduceMatchesTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Dtype dtype = GetParam();
  const Tensor x = (values({30, 50}, 0.91, dtype) * 3).round();
  const Tensor src = (values({30, 50}, 0.37, dtype) * 2).round();
  const Tensor idx = entries(30).narrow(2, 0, 1).squeeze(2);  // (30, 50), entries in [0, 30)
  for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"})
    for (const bool include_self : {true, false}) {
      const Tensor want = scatter_reduce(x, 0, idx, src, reduce, include_self);
      const Tensor got =
          scatter_reduce(x.to(gpu), 0, idx.to(gpu), src.to(gpu), reduce, include_self);
      EXPECT_TRUE(allclose(host(got), host(want), tolerance(dtype), tolerance(dtype)))
          << dtype_name(dtype) << " " << reduce << (include_self ? " with self" : "");
    }
}

// F::embedding with max_norm renormalises the rows it looks up in place (embedding_renorm, each
// repeated row once), for the 2-norm and the 1-norm, as the CPU does.
TEST_P(CudaGather, EmbeddingMaxNormRenormalisesAsTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Dtype dtype = GetParam();
  for (const double p : {2.0, 1.0}) {
    const Tensor wc = values({40, 300}, 0.3, dtype) * 3, wg = wc.to(gpu);
    const Tensor ids = entries(40).narrow(2, 0, 3);  // repeats
    const nn::functional::EmbeddingFuncOptions o{.max_norm = 10.0, .norm_type = p};
    const Tensor yc = nn::functional::embedding(ids, wc, o),
                 yg = nn::functional::embedding(ids.to(gpu), wg, o);
    const std::string what = std::string(dtype_name(dtype)) + " p " + std::to_string(p);
    EXPECT_TRUE(allclose(host(wg), host(wc), tolerance(dtype), tolerance(dtype))) << what;
    EXPECT_TRUE(allclose(host(yg), host(yc), tolerance(dtype), tolerance(dtype))) << what;
  }
}

TEST_P(CudaGather, AnIndexOutOfRangeRaisesTheCpusError) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Tensor x = values({5, 4}, 0.5, GetParam()).to(gpu);
  const Tensor idx = full({3, 4}, 5, {.dtype = kInt64});
  EXPECT_ERROR(x.gather(0, idx.to(gpu)), "index 5 is out of bounds for dimension 0 with size 5");
  EXPECT_ERROR(nn::functional::embedding(idx.to(gpu), x), "index out of range in self");
}

TEST_P(CudaGather, NonzeroAndMasksMatchTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Tensor x = values({30, 50, 7}, 0.91, GetParam()), xg = x.to(gpu);
  const Tensor mask = x > 0.3, mg = mask.to(gpu);
  EXPECT_TRUE(nonzero(mg).cpu().equal(nonzero(mask)));
  EXPECT_TRUE(host(masked_select(xg, mg)).equal(host(masked_select(x, mask))));
  EXPECT_TRUE(host(xg.index({mg})).equal(host(x.index({mask}))));
  const Tensor source = values({30 * 50 * 7}, 0.13, GetParam());
  Tensor want = x.clone(), got = xg.clone();
  masked_scatter_(want, mask, source);
  masked_scatter_(got, mg, source.to(gpu));
  EXPECT_TRUE(host(got).equal(host(want)));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaGather,
                         ::testing::Values(kFloat32, kFloat64, kFloat16, kBFloat16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace ember
