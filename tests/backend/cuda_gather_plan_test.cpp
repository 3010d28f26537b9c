// The CUDA gather-family kernels (src/backend/cuda/gather_body.cuh) run by their CPU emulation
// over launches planned as the device's are (gather_plan.cpp), against the CPU backend, without a
// GPU: gather, scatter, scatter_add and scatter_reduce on strided and transposed operands and
// indices, along every dim, in every floating dtype; index_select, index_add_, index_copy_,
// index_fill_, take, the embedding lookup and its backward, and the index check; a grid smaller
// than the work; and the bad-index record the host turns into the CPU's error. Then advanced
// indexing (index_plan.cpp: index() and index_put_ with and without accumulate) against the CPU
// backend's index entries, and nonzero, masked_select and masked_scatter (nonzero_plan.cpp)
// against the CPU's.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.h"
#include "backend/cuda/emulation.h"
#include "backend/cuda/gather_plan.h"
#include "backend/cuda/index_plan.h"
#include "backend/cuda/nonzero_plan.h"
#include "backend/cuda/renorm_plan.h"
#include "backend/family_kernel.h"
#include "test_support.h"

namespace ember::cuda {
namespace {

using kernels::GatherOp;

constexpr Dtype kFloating[] = {kFloat32, kFloat64, kFloat16, kBFloat16};

/// (rows, cols) small integers in [-9, 9] as `dtype`: exact in every dtype, so any order of
/// scatter_add's additions gives the same bits, and a misplaced element shows.
Tensor ints(int64_t rows, int64_t cols, Dtype dtype, int64_t phase = 0) {
  return ((arange(rows * cols, {.dtype = kInt64}) * 7 + phase) % 19 - 9)
      .reshape({rows, cols})
      .to(dtype);
}

/// (rows, cols) int64 entries in [0, n): many repeats, in no order.
Tensor entries(int64_t rows, int64_t cols, int64_t n, int64_t phase = 0) {
  return ((arange(rows * cols, {.dtype = kInt64}) * 5 + phase) % n).reshape({rows, cols});
}

/// A bad-index record in host memory, as the device's (gather_launch.h).
struct Record {
  std::array<int64_t, 2> v{0, 0};
  int64_t* data() { return v.data(); }
};

Tensor gathered(const Tensor& self, int64_t dim, const Tensor& index, uint32_t blocks = 0) {
  Record r;
  const Tensor out = empty(index.sizes(), {.dtype = self.dtype()});
  kernels::GatherLaunch l = plan_gather_launch(GatherOp::gather, self, dim, index, out, r.data());
  if (blocks) l.blocks = blocks;
  kernels::emulate_gather(l);
  EXPECT_EQ(r.v[0], 0);
  return out;
}

Tensor scattered(GatherOp op, const Tensor& self, int64_t dim, const Tensor& index,
                 const Tensor& src) {
  Record r;
  const Tensor out = self.clone();
  kernels::emulate_gather(plan_gather_launch(op, out, dim, index, src, r.data()));
  EXPECT_EQ(r.v[0], 0);
  return out;
}

// self transposed (strides (1, 9)), the index a strided slice of a transposed tensor (strides
// (2, 80)), along both dims: 360 and 2000 entries, one block and a tail, eight and a tail. Moves
// are bit for bit.
TEST(CudaGatherPlan, GatherMatchesTheCpuOnStridedOperands) {
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt64}) {
    const Tensor self = ints(9, 50, dtype).t();  // (50, 9)
    for (const int64_t dim : {0, 1}) {
      const Tensor strided = entries(90, 80, self.size(dim)).t().slice(0, 0, 80, 2);  // (40, 90)
      const Tensor index = strided.narrow(1, 0, dim == 0 ? 9 : 50);
      EXPECT_TRUE(gathered(self, dim, index).equal(self.gather(dim, index))) << dtype << " " << dim;
    }
  }
}

// The plan caps nothing here, so force a grid of 2 blocks for 1200 entries: the grid-stride
// loop still gives every entry to one thread.
TEST(CudaGatherPlan, AGridSmallerThanTheIndexCoversIt) {
  const Tensor self = ints(50, 9, kFloat32);
  const Tensor index = entries(40, 9, 50);
  EXPECT_TRUE(gathered(self, 0, index, 2).equal(self.gather(0, index)));
}

// Each line of the index a permutation (no repeats: scatter's winner is unspecified otherwise),
// src transposed and larger than the index, self a transposed view written in place.
TEST(CudaGatherPlan, ScatterMatchesTheCpuWithoutRepeats) {
  for (const Dtype dtype : kFloating)
    for (const int64_t dim : {0, 1}) {
      const Tensor self = ints(13, 11, dtype, 3).t();  // (11, 13)
      const int64_t n = self.size(dim), m = self.size(1 - dim);
      // entry (i, j) = (i + 3j) mod n along dim: a permutation of each line.
      Tensor index = (arange(n, {.dtype = kInt64}).unsqueeze(1) +
                      arange(m, {.dtype = kInt64}).unsqueeze(0) * 3) %
                     n;  // (n, m)
      if (dim == 1) index = index.t();
      const Tensor src = ints(20, 20, dtype, 5).t();
      EXPECT_TRUE(
          scattered(GatherOp::scatter, self, dim, index, src).equal(self.scatter(dim, index, src)))
          << dtype << " " << dim;
    }
}

// Many repeats per element, along the first, a middle and the last dim of a 3-d self; a broadcast
// scalar src (strides 0) too.
TEST(CudaGatherPlan, ScatterAddSumsRepeatedEntriesAsTheCpu) {
  for (const Dtype dtype : kFloating) {
    const Tensor self = ints(8, 42, dtype).reshape({8, 6, 7});
    const Tensor src = ints(8, 40, dtype, 2).reshape({8, 5, 8});
    for (const int64_t dim : {0, 1, 2}) {
      const Tensor index = entries(8, 35, self.size(dim), dim).reshape({8, 5, 7});
      const Tensor s = src.narrow(2, 0, 7);
      EXPECT_TRUE(scattered(GatherOp::scatter_add, self, dim, index, s)
                      .equal(self.scatter_add(dim, index, s)))
          << dtype << " " << dim;
    }
    const Tensor one = ones({}, {.dtype = dtype}).expand({8, 5, 7});
    const Tensor index = entries(8, 35, 8).reshape({8, 5, 7});
    EXPECT_TRUE(scattered(GatherOp::scatter_add, self, 0, index, one)
                    .equal(self.scatter_add(0, index, one.contiguous())))
        << dtype;
  }
}

// scatter_reduce's own kernels (prod, amax, amin) with many repeats, along each dim, src from
// {±0.5, ±1, 2} (products exact in every dtype and order) with NaNs for amax/amin (NaN wins
// whatever the order); without include_self the positions first take the identity by a scatter
// (Note [CUDA scatter_reduce] in src/backend/cuda/gather.cpp).
TEST(CudaGatherPlan, ScatterReduceMatchesTheCpu) {
  const std::pair<GatherOp, const char*> reductions[] = {{GatherOp::scatter_prod, "prod"},
                                                         {GatherOp::scatter_amax, "amax"},
                                                         {GatherOp::scatter_amin, "amin"}};
  const double identity[] = {1.0, -INFINITY, INFINITY};
  for (const Dtype dtype : kFloating)
    for (const int64_t dim : {0, 1})
      for (int k = 0; k < 3; ++k)
        for (const bool include_self : {true, false}) {
          const auto [op, name] = reductions[k];
          const Tensor self = ints(6, 7, dtype, 1);
          const Tensor choices = tensor({0.5, -1.0, 2.0, 1.0, -0.5}).to(dtype);
          Tensor src = choices.index_select(0, entries(6, 7, 5, 3).flatten()).reshape({6, 7});
          if (k > 0) src.select(0, 4).select(0, 2).fill_(NAN);
          const Tensor index = entries(6, 7, self.size(dim), dim);
          const Tensor want = scatter_reduce(self, dim, index, src, name, include_self);
          const Tensor got = self.clone();
          Record r;
          if (!include_self) {
            const Tensor id = full({}, identity[k], {.dtype = dtype}).expand(index.sizes());
            kernels::emulate_gather(
                plan_gather_launch(GatherOp::scatter, got, dim, index, id, r.data()));
          }
          kernels::emulate_gather(plan_gather_launch(op, got, dim, index, src, r.data()));
          EXPECT_EQ(r.v[0], 0);
          EXPECT_TRUE(allclose(got, want, 0, 0, /*equal_nan=*/true))
              << dtype_name(dtype) << " " << name << " dim " << dim << " include_self "
              << include_self << "\ngot " << got << "\nwant " << want;
        }
}

TEST(CudaGatherPlan, ScatterAddTakesOnlyFloatingDtypes) {
  const Tensor self = zeros({4}, {.dtype = kInt64}), index = zeros({4}, {.dtype = kInt64});
  Record r;
  EXPECT_ERROR(plan_gather_launch(GatherOp::scatter_add, self, 0, index, self, r.data()),
               "the cuda backend has no int64 kernel yet");
}

// An entry out of range (past the end, then negative) is recorded, its element left alone, the
// others written; the host's error is the CPU kernel's.
TEST(CudaGatherPlan, BadEntriesAreRecordedAndRaiseTheCpusError) {
  const Tensor self = ints(5, 4, kFloat32);
  for (const int64_t bad : {5, -1}) {
    const Tensor index = entries(3, 4, 5);
    index.select(0, 2).select(0, 1).fill_(bad);
    Record r;
    const Tensor out = full({3, 4}, 100.0f);
    kernels::emulate_gather(plan_gather_launch(GatherOp::gather, self, 0, index, out, r.data()));
    EXPECT_EQ(r.v[0], 1);
    EXPECT_EQ(r.v[1], bad);
    EXPECT_EQ(out.select(0, 2).select(0, 1).item<float>(), 100.0f);
    EXPECT_TRUE(out.narrow(0, 0, 2).equal(self.gather(0, index.narrow(0, 0, 2))));
    const std::string words =
        "index " + std::to_string(bad) + " is out of bounds for dimension 0 with size 5";
    EXPECT_ERROR(raise_bad_index("gather", r.data(), 0, 5), words);
    EXPECT_ERROR((void)self.gather(0, index), words);
  }
}

// Along the first, a middle and the last dim of (4, 5, 6), repeated entries, every dtype
// (the kernel moves bytes): 4 * 7 * 6 = 168 outputs, less than one block.
TEST(CudaGatherPlan, IndexSelectMatchesTheCpu) {
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kBool}) {
    const Tensor self = ints(4, 30, kFloat32).reshape({4, 5, 6}).to(dtype);
    for (const int64_t dim : {0, 1, 2}) {
      const Tensor index = entries(1, 7, self.size(dim), dim).reshape({7});
      const Tensor want = self.index_select(dim, index);
      const Tensor out = empty(want.sizes(), {.dtype = dtype});
      Record r;
      kernels::emulate_select(plan_index_select_launch(out, self, dim, index, r.data()));
      EXPECT_EQ(r.v[0], 0);
      EXPECT_TRUE(out.equal(want)) << dtype << " " << dim;
    }
  }
}

// Slices of (4, 5, 6) along each dim: index_add_ with repeated entries (small integers and an
// alpha of 0.5: exact in every order and dtype), index_copy_ with distinct ones, index_fill_.
TEST(CudaGatherPlan, IndexAddCopyAndFillMatchTheCpu) {
  for (const Dtype dtype : kFloating)
    for (const int64_t dim : {0, 1, 2}) {
      const Tensor self = ints(4, 30, dtype).reshape({4, 5, 6});
      const int64_t size = self.size(dim);
      const Tensor repeated = entries(1, 9, size, dim).reshape({9});
      const Tensor distinct = arange(size - 1, -1, -1, {.dtype = kInt64});  // reversed
      DimVector shape(self.sizes());
      shape[size_t(dim)] = 9;
      const Tensor source = ints(1, 9 * (120 / size), dtype, 3).reshape(shape);
      const std::string what = std::string(dtype_name(dtype)) + " dim " + std::to_string(dim);
      auto emulated = [&](GatherOp op, const Tensor& index, const Tensor& src, double alpha) {
        Record r;
        const Tensor out = self.clone();
        kernels::emulate_gather(
            plan_index_scatter_launch(op, out, dim, index, src, alpha, r.data()));
        EXPECT_EQ(r.v[0], 0) << what;
        return out;
      };
      EXPECT_TRUE(emulated(GatherOp::scatter_add, repeated, source, 0.5)
                      .equal(self.clone().index_add_(dim, repeated, source, 0.5)))
          << what;
      const Tensor slices = self.flip({dim}) * 2;  // one slice per entry of distinct
      EXPECT_TRUE(emulated(GatherOp::scatter, distinct, slices, 1)
                      .equal(self.clone().index_copy_(dim, distinct, slices)))
          << what;
      const Tensor value = full({}, -7.5, {.dtype = dtype}).expand(shape);
      EXPECT_TRUE(emulated(GatherOp::scatter, repeated, value, 1)
                      .equal(self.clone().index_fill_(dim, repeated, -7.5)))
          << what;
    }
}

// Flat entries over the whole of a (7, 9) self, negative ones from the end; an entry past the
// end is recorded as given.
TEST(CudaGatherPlan, TakeMatchesTheCpu) {
  for (const Dtype dtype : {kFloat32, kFloat16, kInt64}) {
    const Tensor self = ints(7, 9, dtype);
    const Tensor index = entries(3, 5, 126, 1) - 63;  // in [-63, 63)
    const Tensor out = empty({3, 5}, {.dtype = dtype});
    Record r;
    kernels::emulate_select(plan_take_launch(out, self, index, r.data()));
    EXPECT_EQ(r.v[0], 0);
    EXPECT_TRUE(out.equal(take(self, index))) << dtype_name(dtype);
  }
  const Tensor index = tensor({3, -64, 5}, kInt64);
  Record r;
  kernels::emulate_select(plan_take_launch(empty({3}), ints(7, 9, kFloat32), index, r.data()));
  EXPECT_EQ(r.v[0], 1);
  EXPECT_EQ(r.v[1], -64);
}

// The CPU backend's check_index wraps negative entries in place; the kernel must leave the same
// entries, and record an entry out of range with or without wrapping.
TEST(CudaGatherPlan, IndexCheckWrapsAndRecordsAsTheCpu) {
  const Tensor index = arange(-7, 7, {.dtype = kInt64}).repeat({30});  // 420 entries: a tail
  const Tensor want = index.clone();
  backend::backend_for(kCPU)->gather.check_index("index_select", want, 0, 7, true);
  Record r;
  const Tensor got = index.clone();
  kernels::emulate_check_index(plan_check_index_launch(got, 7, true, r.data()));
  EXPECT_EQ(r.v[0], 0);
  EXPECT_TRUE(got.equal(want));
  for (const bool wrap : {true, false}) {
    Record bad;
    const Tensor t = index.clone();
    kernels::emulate_check_index(plan_check_index_launch(t, wrap ? 6 : 7, wrap, bad.data()));
    EXPECT_EQ(bad.v[0], 1) << wrap;
    EXPECT_EQ(bad.v[1], -7) << wrap;  // the first entry, out of range either way
  }
}

// Rows of a (10, 7) table at (3, 5) indices with repeats, in every floating dtype; an index past
// the table is recorded.
TEST(CudaGatherPlan, EmbeddingLooksUpTheCpusRows) {
  const backend::EmbeddingKernels& cpu = backend::backend_for(kCPU)->embedding;
  for (const Dtype dtype : kFloating) {
    const Tensor weight = ints(10, 7, dtype);
    const Tensor indices = entries(3, 5, 10, 1);
    const Tensor want = empty({3, 5, 7}, {.dtype = dtype}),
                 got = empty({3, 5, 7}, {.dtype = dtype});
    cpu.embedding("embedding", want, weight, indices);
    Record r;
    kernels::emulate_select(plan_embedding_launch(got, weight, indices, r.data()));
    EXPECT_EQ(r.v[0], 0);
    EXPECT_TRUE(got.equal(want)) << dtype;
  }
  const Tensor indices = entries(3, 5, 10);
  indices.select(0, 1).select(0, 4).fill_(10);
  Record r;
  const Tensor out = empty({3, 5, 7});
  kernels::emulate_select(plan_embedding_launch(out, ints(10, 7, kFloat32), indices, r.data()));
  EXPECT_EQ(r.v[0], 1);
  EXPECT_EQ(r.v[1], 10);
}

// grad_weight (12, 9) from 40 rows at indices with repeats, with and without padding_idx and
// scale_grad_by_freq, in float32 and float64. Without scaling each element adds its rows in index
// order, as the CPU: the same bits. With it each row is scaled by 1 / count first, where the CPU's
// compiler may fuse the multiply into its add: within a few eps of the sum of |terms|.
TEST(CudaGatherPlan, EmbeddingBackwardSumsRowsAsTheCpu) {
  const backend::EmbeddingKernels& cpu = backend::backend_for(kCPU)->embedding;
  for (const Dtype dtype : {kFloat32, kFloat64})
    for (const int64_t pad : {int64_t(-1), int64_t(3)})
      for (const bool freq : {false, true}) {
        const Tensor grad = ints(40, 9, dtype, 4) * 0.37;
        const Tensor indices = entries(1, 40, 12, 2).reshape({40});
        const Tensor want = zeros({12, 9}, {.dtype = dtype}),
                     got = zeros({12, 9}, {.dtype = dtype});
        cpu.embedding_backward("embedding_backward", want, grad, indices, pad, freq);
        Record r;
        std::vector<int64_t> counts(12, 0);
        const auto [check, add] = plan_embedding_backward_launches(
            got, grad, indices, pad, freq ? counts.data() : nullptr, r.data());
        kernels::emulate_check_index(check);
        kernels::emulate_gather(add);
        EXPECT_EQ(r.v[0], 0);
        const std::string what =
            std::string(dtype_name(dtype)) + " pad " + std::to_string(pad) + (freq ? " freq" : "");
        if (!freq) {
          EXPECT_TRUE(got.equal(want)) << what;
          continue;
        }
        const double eps = dtype == kFloat64 ? 0x1p-52 : 0x1p-23;
        Tensor tol = zeros({12, 9}, {.dtype = kFloat64});
        tol.index_add_(0, indices, grad.to(kFloat64).abs() * (4 * eps));
        EXPECT_TRUE(((got.to(kFloat64) - want.to(kFloat64)).abs() <= tol).all().item<bool>())
            << what << "\ngot " << got << "\nwant " << want;
        EXPECT_EQ(counts[2], (indices == 2).sum().item<int64_t>());
      }
}

/// embedding_renorm's two emulated passes, as renorm.cpp queues them (the record checked between).
void renorm_emulated(const Tensor& weight, const Tensor& indices, double max_norm, double p,
                     uint32_t blocks = 0) {
  Record r;
  const Tensor owner = full({weight.size(0)}, int64_t(-1), {.dtype = kInt64});
  using Pass = kernels::RenormLaunch;
  kernels::emulate_renorm(plan_renorm_launch("embedding_renorm", Pass::own, weight, indices, owner,
                                             r.data(), max_norm, p));
  ASSERT_EQ(r.v[0], 0);
  kernels::RenormLaunch l = plan_renorm_launch("embedding_renorm", Pass::renorm, weight, indices,
                                               owner, r.data(), max_norm, p);
  if (blocks) l.blocks = blocks;
  kernels::emulate_renorm(l);
}

// A (30, D) table renormalised at 40 entries with repeats, for norms 2, 1, 3, inf and 0, rows a
// warp's length and shorter (32 threads) and longer (128, several elements a thread), in every
// floating dtype, against the CPU kernel: rows not indexed, or within max_norm, keep their bits;
// the others are within the dtype's rounding (the norm sums in block_reduce's tree, the CPU in
// its reduction's order). Each repeated row is scaled once: a second scale would shrink it again.
TEST(CudaGatherPlan, EmbeddingRenormMatchesTheCpu) {
  const backend::EmbeddingKernels& cpu = backend::backend_for(kCPU)->embedding;
  for (const Dtype dtype : kFloating)
    for (const int64_t D : {1, 7, 32, 300})
      for (const double p : {2.0, 1.0, 3.0, double(INFINITY), 0.0})
        for (const uint32_t blocks : {0u, 3u}) {  // a block per entry; a grid-stride over blocks
          const Tensor weight = ints(30, D, dtype) * 0.37;
          const Tensor indices = entries(1, 40, 25, 3).reshape({40});  // rows 25.. untouched
          // About half a typical row's norm (|x| averages 1.8): some rows exceed it, some not.
          const double max_norm = p == 0          ? 0.5 * double(D)
                                  : p == INFINITY ? 2.0
                                                  : std::pow(double(D), 1 / p);
          const Tensor want = weight.clone(), got = weight.clone();
          cpu.embedding_renorm("embedding_renorm", want, indices, max_norm, p);
          renorm_emulated(got, indices, max_norm, p, blocks);
          const std::string what = std::string(dtype_name(dtype)) + " D " + std::to_string(D) +
                                   " p " + std::to_string(p) + " blocks " + std::to_string(blocks);
          const Tensor same = (want == weight).all(1);  // the rows the CPU left alone
          EXPECT_TRUE(got.index_select(0, same.nonzero().flatten())
                          .equal(weight.index_select(0, same.nonzero().flatten())))
              << what;
          EXPECT_FALSE(same.all().item<bool>()) << what << ": no row was renormalised";
          const double tol = dtype == kFloat64   ? 1e-12
                             : dtype == kFloat32 ? 1e-5
                             : dtype == kFloat16 ? 2e-3
                                                 : 1.6e-2;
          EXPECT_TRUE(allclose(got.to(kFloat64), want.to(kFloat64), tol, tol)) << what;
        }
}

TEST(CudaGatherPlan, EmbeddingRenormRecordsAnIndexOutsideTheTable) {
  Record r;
  const Tensor weight = ints(5, 3, kFloat32), owner = empty({5}, {.dtype = kInt64});
  const Tensor indices = tensor({1, 5, 2}, kInt64);
  kernels::emulate_renorm(plan_renorm_launch("embedding_renorm", kernels::RenormLaunch::own, weight,
                                             indices, owner, r.data(), 1.0, 2.0));
  EXPECT_EQ(r.v[0], 1);
  EXPECT_EQ(r.v[1], 5);
  EXPECT_ERROR(plan_renorm_launch("embedding_renorm", kernels::RenormLaunch::own,
                                  ints(5, 3, kInt64), indices, owner, r.data(), 1.0, 2.0),
               "the cuda backend has no int64 kernel");
}

// ── advanced indexing (Note [CUDA advanced indexing]) ────────────────────────────────────────

/// The emulated steps of plan_index, as index.cpp queues them: the offsets, the record check,
/// the walk.
void index_emulated(kernels::GatherOp op, const Tensor& plain, const backend::AdvancedIndex& at) {
  const IndexWork w = plan_index("emulated", op, plain, at);
  kernels::emulate_index_offsets(w.offsets_launch);
  raise_bad_index_entry(w.record.data_ptr<int64_t>(), at);
  if (w.walk.numel > 0) kernels::emulate_gather(w.walk);
}

const backend::IndexKernels& cpu_index() { return backend::backend_for(kCPU)->index; }

// src (5, 4, 6) transposed and sliced, dims 1 and 2 indexed by two (2, 3) indices with negative
// entries (a front-end plan has them broadcast and contiguous), and a lone index at the front and
// at the back: index() moves every dtype's bytes as the CPU's.
TEST(CudaIndexPlan, IndexMatchesTheCpuBackendOnStridedSources) {
  const Tensor i0 = tensor({{0, -1, 2}, {3, 1, -4}}), i1 = tensor({{5, 0, -6}, {2, 2, 1}});
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt64, kInt32, kBool}) {
    const Tensor base = ints(30, 28, dtype).reshape({6, 4, 35}).narrow(2, 3, 30);
    const Tensor src = base.reshape({6, 4, 5, 6}).select(0, 2).permute({1, 0, 2});  // (5, 4, 6)
    ASSERT_FALSE(src.is_contiguous());
    const std::vector<Tensor> pair{i0, i1};
    const backend::AdvancedIndex cases[] = {{src, 1, pair}, {src, 0, {&i0, 1}}, {src, 2, {&i1, 1}}};
    for (const backend::AdvancedIndex& at : cases) {
      DimVector shape;
      for (int64_t d = 0; d < at.first; ++d) shape.push_back(src.size(d));
      for (int64_t s : at.indices[0].sizes()) shape.push_back(s);
      for (int64_t d = at.first + int64_t(at.indices.size()); d < src.dim(); ++d)
        shape.push_back(src.size(d));
      const Tensor got = empty(shape, {.dtype = dtype}), want = empty(shape, {.dtype = dtype});
      index_emulated(GatherOp::gather, got, at);
      cpu_index().index(want, at);
      EXPECT_TRUE(got.equal(want)) << dtype << " from dim " << at.first;
    }
  }
}

// index_put_ of distinct positions (a scatter) and, with accumulate, of repeated ones (an atomic
// add on the device: small integers, exact in any order), with values broadcast over the index
// shape in a way that does not flatten (a contiguous copy is walked) and that does.
TEST(CudaIndexPlan, IndexPutWithAndWithoutAccumulateMatchesTheCpuBackend) {
  const Tensor distinct0 = tensor({{0, 4}, {2, -2}}), distinct1 = tensor({{1, 3}, {-1, 0}});
  const Tensor repeated0 = tensor({{1, 1}, {1, -4}}), repeated1 = tensor({{2, 2}, {-2, 2}});
  for (const Dtype dtype : kFloating) {
    const Tensor self = ints(20, 6, dtype).reshape({5, 4, 6});  // indexed on dims 0 and 1
    const Tensor rows = ints(2, 6, dtype, 3);
    const Tensor values[] = {rows.reshape({1, 2, 6}).expand({2, 2, 6}),  // S doesn't flatten
                             ints(1, 6, dtype, 5).expand({2, 2, 6}),     // broadcast over S
                             ints(4, 6, dtype, 1).reshape({2, 2, 6})};
    for (const Tensor& value : values)
      for (const bool accumulate : {false, true}) {
        const std::vector<Tensor> idx = accumulate ? std::vector<Tensor>{repeated0, repeated1}
                                                   : std::vector<Tensor>{distinct0, distinct1};
        const Tensor got = self.clone(), want = self.clone();
        index_emulated(accumulate ? GatherOp::scatter_add : GatherOp::scatter, value,
                       {got, 0, idx});
        cpu_index().index_put({want, 0, idx}, value, accumulate);
        EXPECT_TRUE(got.equal(want))
            << dtype << " accumulate " << accumulate << " values " << value.strides();
        EXPECT_FALSE(got.equal(self)) << dtype;
      }
  }
}

TEST(CudaIndexPlan, BadEntriesAndTypesAreTheCpusErrors) {
  const Tensor src = zeros({3, 4}), good = tensor({0, 1}), bad = tensor({1, 4, -5});
  const Tensor out = empty({2});
  const std::vector<Tensor> indices{good.expand({2}).contiguous(), tensor({3, 4})};
  EXPECT_ERROR(index_emulated(GatherOp::gather, out, {src, 0, indices}),
               "[index] index 4 is out of bounds for dimension 1 with size 4");
  EXPECT_ERROR(index_emulated(GatherOp::gather, empty({3, 3}), {src, 1, {&bad, 1}}),
               "[index] index 4 is out of bounds for dimension 0 with size 4");
  const Tensor ints = zeros({3}, {.dtype = kInt64});
  EXPECT_ERROR(
      plan_index("index_put_", GatherOp::scatter_add, ints.narrow(0, 0, 2), {ints, 0, {&good, 1}}),
      "[index_put_] the cuda backend has no int64 kernel yet (index_put_ with "
      "accumulate on cuda takes float32, float64, float16 or bfloat16)");
}

// ── nonzero (Note [CUDA nonzero]) ─────────────────────────────────────────────────────────────

/// The emulated steps of nonzero.cpp: count, scan, the total read back, write.
Tensor nonzero_emulated(const Tensor& x) {
  NonzeroWork w = plan_nonzero(x);
  kernels::emulate_nonzero(w.count);
  kernels::emulate_scan(w.scan);
  const Tensor out =
      nonzero_result(w, w.ends.select(0, w.ends.numel() - 1).item<int64_t>(), x.device());
  kernels::emulate_nonzero(w.write);
  return out;
}

// Every storage type, NaN (nonzero) and -0.0 (zero), 0-d, all-zero and one-element inputs, runs
// of 1 to 17 elements (more than the grid's threads at the largest): the CPU's rows, in order.
TEST(CudaNonzeroPlan, CoordinatesInRowMajorOrderMatchTheCpuBackend) {
  const auto cpu_nonzero = backend::backend_for(kCPU)->gather.nonzero;
  const Tensor pattern = (arange(256 * 16 * 256 + 77, {.dtype = kInt64}) * 7 % 5 - 2)
                             .clamp(0, 2);  // 0, 1 or 2, zeros in runs
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt64, kInt32, kBool}) {
    const Tensor inputs[] = {pattern.narrow(0, 0, 1050).reshape({7, 150}).to(dtype),
                             pattern.narrow(0, 5, 360).reshape({3, 4, 5, 6}).to(dtype),
                             pattern.to(dtype),
                             full({}, 1, {.dtype = dtype}),
                             zeros({40}, {.dtype = dtype}),
                             ones({1}, {.dtype = dtype})};
    for (const Tensor& x : inputs) {
      const Tensor got = nonzero_emulated(x);
      EXPECT_TRUE(got.equal(cpu_nonzero(x))) << dtype << " " << x.sizes();
    }
  }
  Tensor special = tensor({0.0, -0.0, NAN, 1.0, -0.0, INFINITY});
  EXPECT_TRUE(nonzero_emulated(special).equal(tensor({{2}, {3}, {5}})));
  const NonzeroWork big = plan_nonzero(pattern);
  EXPECT_EQ(big.count.blocks, kNonzeroMaxBlocks);
  EXPECT_EQ(big.count.per_thread, 17);  // beyond the 16 a thread aims at: the grid is capped
  EXPECT_ERROR(plan_nonzero(zeros({4, 4}).t()), "[nonzero] the cuda kernel expects a contiguous");
}

// masked_select and masked_scatter: the same count and scan over the mask, then the values'
// compaction. Every element size (bool, float16, float32, float64), masks with runs longer and
// shorter than a thread's share, all-false and all-true masks; the CPU backend's results bit for
// bit, and its error for a short source.
TEST(CudaNonzeroPlan, MaskedSelectAndScatterMatchTheCpuBackend) {
  const auto& cpu = backend::backend_for(kCPU)->gather;
  const Tensor pattern = (arange(256 * 16 * 256 + 77, {.dtype = kInt64}) * 7 % 5 - 2).clamp(0, 2);
  const auto counted = [](const Tensor& mask) {
    NonzeroWork w = plan_nonzero(mask);
    kernels::emulate_nonzero(w.count);
    kernels::emulate_scan(w.scan);
    const int64_t total = w.ends.select(0, w.ends.numel() - 1).item<int64_t>();
    return std::pair<NonzeroWork, int64_t>{std::move(w), total};
  };
  for (const Dtype dtype : {kBool, kFloat16, kFloat32, kFloat64}) {
    const Tensor masks[] = {pattern.narrow(0, 0, 1050).reshape({7, 150}) > 0,
                            pattern.narrow(0, 0, 1048649).reshape({-1, 7}) == 1,
                            zeros({7, 150}, {.dtype = kBool}), ones({3, 5}, {.dtype = kBool})};
    for (const Tensor& mask : masks) {
      const Tensor self =
          (arange(mask.numel(), {.dtype = kFloat64}) * 0.37).sin().reshape(mask.sizes()).to(dtype);
      const std::string what = std::string(dtype_name(dtype)) + " " + std::to_string(mask.numel());
      auto [w, total] = counted(mask);
      Tensor got;
      const kernels::NonzeroLaunch select = plan_masked_select(w, self, total, got);
      if (total > 0) kernels::emulate_nonzero(select);
      EXPECT_TRUE(got.equal(cpu.masked_select(self, mask))) << what;

      const Tensor source = (arange(mask.numel() + 3, {.dtype = kFloat64}) * -1.5).to(dtype);
      const Tensor want = self.clone(), scattered = self.clone();
      cpu.masked_scatter(want, mask, source);
      const kernels::NonzeroLaunch scatter = plan_masked_scatter(w, scattered, source, total);
      if (total > 0) kernels::emulate_nonzero(scatter);
      EXPECT_TRUE(scattered.equal(want)) << what;
    }
  }
  const Tensor mask = ones({6}, {.dtype = kBool});
  const auto counts = counted(mask);  // not a structured binding: EXPECT_ERROR's lambda captures
  EXPECT_ERROR(plan_masked_scatter(counts.first, zeros({6}), zeros({4}), counts.second),
               "[masked_scatter_] Number of elements of source (4) < number of ones in mask (6)");
}

}  // namespace
}  // namespace ember::cuda
