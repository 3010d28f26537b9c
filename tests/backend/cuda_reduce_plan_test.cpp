// The host half of the CUDA reductions and softmax (src/backend/cuda/reduce_plan.cpp,
// softmax_plan.cpp), over CPU tensors so that it runs in every build: the kept and reduced
// index spaces (merged dims, byte strides), the splitting of few outputs over many blocks, the
// (outer, dim, inner) view of softmax, and the errors. A planned reduction is also run by the
// kernels' CPU emulation (backend/cuda/emulation.h: chunks per split, then the combine) and
// compared with the CPU's reductions.
#include "backend/cuda/reduce_plan.h"

#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "backend/cuda/emulation.h"
#include "backend/cuda/softmax_plan.h"
#include "test_support.h"

namespace ember::cuda {
namespace {

using kernels::ReduceOp;

kernels::ReduceLaunch plan(ReduceOp op, const Tensor& out, const Tensor& in,
                           std::vector<int64_t> dims, double arg = 0) {
  return plan_reduce_launch(op, {"sum", out, in, dims, arg});
}

// reduce.cu's two kernels run by their CPU emulation over the plan, into the planned output.
Tensor walk(kernels::ReduceLaunch l, const Tensor& out) {
  std::vector<char> partial(size_t(reduce_partial_bytes(l)));
  l.partial = partial.data();
  kernels::emulate_reduce(l);
  return out;
}

TEST(CudaReducePlan, KeptAndReducedDimsMergeWhereTheInputIsContiguous) {
  const Tensor in = ones({2, 3, 4, 5});
  const Tensor out = empty({2});
  const kernels::ReduceLaunch l = plan(ReduceOp::sum, out, in, {1, 2, 3});
  EXPECT_EQ(l.type, kernels::Type::float32);
  EXPECT_EQ(l.outputs, 2);
  EXPECT_EQ(l.reduced, 60);
  EXPECT_EQ(l.kept_ndim, 1);
  EXPECT_EQ(l.kept_strides[0], 240);  // bytes
  ASSERT_EQ(l.reduced_ndim, 1);       // (3, 4, 5) merged into one run of 60
  EXPECT_EQ(l.reduced_shape[0], 60);
  EXPECT_EQ(l.reduced_strides[0], 4);
  EXPECT_EQ(l.splits, 1u);
  EXPECT_EQ(l.blocks, 2u);
  EXPECT_EQ(l.threads, 64u);  // 60 values a block: two warps
  // Kept dims 0 and 2 around a reduced one stay apart in the input: two kept dims.
  const kernels::ReduceLaunch m = plan(ReduceOp::amax, empty({2, 4}), in, {1, 3});
  EXPECT_EQ(m.kept_ndim, 2);
  EXPECT_EQ(m.reduced_ndim, 2);
  EXPECT_EQ(m.reduced_strides[0], 80);
  EXPECT_EQ(m.reduced_strides[1], 4);
}

TEST(CudaReducePlan, FewOutputsOverManyElementsSplitAcrossBlocks) {
  const Tensor in = empty({int64_t(1) << 24});
  const kernels::ReduceLaunch l = plan(ReduceOp::sum, empty({}), in, {0});
  EXPECT_EQ(l.outputs, 1);
  EXPECT_EQ(l.splits, uint32_t(kReduceTargetBlocks));
  EXPECT_EQ(l.chunk * l.splits, int64_t(1) << 24);
  EXPECT_EQ(reduce_partial_bytes(l), kReduceTargetBlocks * 4);  // float accumulators
  EXPECT_EQ(l.threads, kReduceThreads);
  const kernels::ReduceLaunch small = plan(ReduceOp::sum, empty({}), empty({100}), {0});
  EXPECT_EQ(small.splits, 1u);
  EXPECT_EQ(reduce_partial_bytes(small), 0);
  const Tensor h = empty({4, 100000}, {.dtype = kFloat16});
  const kernels::ReduceLaunch half = plan(ReduceOp::mean, empty({4}, {.dtype = kFloat16}), h, {1});
  EXPECT_EQ(half.type, kernels::Type::float16);
  EXPECT_EQ(half.splits, uint32_t((100000 + kReduceMinChunk - 1) / kReduceMinChunk));
  EXPECT_EQ(reduce_partial_bytes(half), 4 * int64_t(half.splits) * 4);  // float32, not half
}

// Transposed, sliced and broadcast inputs, over all or some dims, split or not: the walked plan
// gives the CPU's sum, mean, amax and amin.
TEST(CudaReducePlan, WalkingThePlanGivesTheCpusReductions) {
  const Tensor values = (arange(40 * 30 * 6, {.dtype = kFloat64}).reshape({40, 30, 6}) * 0.37)
                            .sin();
  const std::pair<const char*, Tensor> inputs[] = {
      {"contiguous", values},
      {"transposed", values.transpose(0, 2)},
      {"sliced", values.narrow(1, 3, 20).narrow(2, 1, 4)},
      {"broadcast", values.select(1, 2).unsqueeze(1).expand({40, 7, 6})},
  };
  const std::vector<std::vector<int64_t>> dim_sets = {{0, 1, 2}, {1}, {0, 2}, {2}};
  for (const auto& [name, in] : inputs)
    for (const auto& dims : dim_sets) {
      int64_t count = 1;
      for (int64_t d : dims) count *= in.size(d);
      const Tensor want[] = {in.sum(dims), in.mean(dims), in.amax(dims), in.amin(dims)};
      const ReduceOp ops[] = {ReduceOp::sum, ReduceOp::mean, ReduceOp::amax, ReduceOp::amin};
      for (int k = 0; k < 4; ++k) {
        const Tensor out = empty(want[k].sizes(), {.dtype = kFloat64});
        const kernels::ReduceLaunch l = plan(ops[k], out, in, dims, double(count));
        const Tensor got = walk(l, out);
        EXPECT_TRUE(allclose(got, want[k], 1e-12, 1e-12))
            << name << " input, op " << k << ", " << dims.size() << " dims";
      }
    }
  // A large sum that splits: the chunks cover every element once.
  const Tensor big = ones({3 * kReduceMinChunk + 5}, {.dtype = kFloat64});
  const Tensor total = empty({}, {.dtype = kFloat64});
  const kernels::ReduceLaunch l = plan(ReduceOp::sum, total, big, {0});
  EXPECT_EQ(l.splits, 4u);
  EXPECT_EQ(walk(l, total).item<double>(), double(big.numel()));
}

TEST(CudaReducePlan, ZeroDimensionalAndEmptyInputs) {
  const Tensor x = full({}, 2.5);
  const kernels::ReduceLaunch l = plan(ReduceOp::sum, empty({}), x, {});
  EXPECT_EQ(l.outputs, 1);
  EXPECT_EQ(l.reduced, 1);
  EXPECT_EQ(l.kept_ndim + l.reduced_ndim, 0);
  EXPECT_EQ(l.threads, 32u);  // never fewer than a warp
  const kernels::ReduceLaunch e = plan(ReduceOp::mean, empty({3}), empty({3, 0}), {1});
  EXPECT_EQ(e.reduced, 0);
  EXPECT_EQ(e.splits, 1u);
}

TEST(CudaReducePlan, OtherDtypesAreErrors) {
  const Tensor i = arange(4);
  EXPECT_ERROR(plan(ReduceOp::sum, empty({}, {.dtype = kInt64}), i, {0}),
               "[sum] the cuda backend has no int64 kernel yet");
  EXPECT_ERROR(plan(ReduceOp::sum, empty({}, {.dtype = kFloat64}), ones({4}), {0}),
               "[sum] the cuda backend reduces into the input's dtype, got torch.float32 into "
               "torch.float64");
}

TEST(CudaSoftmaxPlan, LinesAreOuterTimesInnerWithTheDimBetween) {
  const Tensor x = ones({2, 3, 4, 5}), y = empty({2, 3, 4, 5});
  const kernels::SoftmaxLaunch l = plan_softmax_launch("softmax", y, x, 2, false);
  EXPECT_EQ(l.type, kernels::Type::float32);
  EXPECT_EQ(l.log, 0);
  EXPECT_EQ(l.outer, 6);
  EXPECT_EQ(l.dim, 4);
  EXPECT_EQ(l.inner, 5);
  EXPECT_EQ(l.lines, 30);
  EXPECT_EQ(l.blocks, 30u);
  EXPECT_EQ(l.threads, 32u);  // one warp for 4 values
  EXPECT_EQ(plan_softmax_launch("softmax", empty({2, 1000}), ones({2, 1000}), 1, false).threads,
            kSoftmaxThreads);
  const Tensor xd = ones({7}, {.dtype = kFloat64}), yd = empty({7}, {.dtype = kFloat64});
  const kernels::SoftmaxLaunch last = plan_softmax_launch("log_softmax", yd, xd, 0, true);
  EXPECT_EQ(last.type, kernels::Type::float64);
  EXPECT_EQ(last.log, 1);
  EXPECT_EQ(last.lines, 1);
  EXPECT_EQ(last.dim, 7);
  const kernels::SoftmaxLaunch scalar =
      plan_softmax_launch("softmax", empty({}), full({}, 1.0f), 0, false);
  EXPECT_EQ(scalar.lines, 1);
  EXPECT_EQ(scalar.dim, 1);
  EXPECT_EQ(plan_softmax_launch("softmax", empty({3, 0}), empty({3, 0}), 1, false).lines, 0);
  EXPECT_ERROR(plan_softmax_launch("softmax", empty({3}, {.dtype = kFloat16}),
                                   empty({3}, {.dtype = kFloat16}), 0, false),
               "[softmax] the cuda backend has no float16 kernel yet");
}

}  // namespace
}  // namespace ember::cuda
