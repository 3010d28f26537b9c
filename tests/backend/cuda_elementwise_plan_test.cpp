// The host half of a CUDA elementwise launch (src/backend/cuda/elementwise_plan.cpp), over CPU
// tensors so that it runs in every build: how the layout is planned (merged dims, byte strides,
// broadcast and offset operands), the kernel type, alpha, the grid, and the errors.
#include "backend/cuda/elementwise_plan.h"

#include <ember/ember.h>
#include <gtest/gtest.h>

#include <vector>

#include "test_support.h"

namespace ember::cuda {
namespace {

using backend::ElementwiseArgs;
using backend::ElementwiseCall;
using kernels::Op;

char* bytes_of(const Tensor& t) { return static_cast<char*>(t.data_ptr()); }

TEST(CudaElementwisePlan, ContiguousOperandsMergeIntoOneDimension) {
  const Tensor out = empty({4, 5}), a = ones({4, 5}), b = ones({4, 5});
  const std::vector<Tensor> in{a, b};
  const ElementwiseArgs args{.scalar = {Scalar(2)}};
  const kernels::Launch l = plan_elementwise_launch(Op::add, 2, {"add", out, in, kFloat32, args});
  EXPECT_EQ(l.op, Op::add);
  EXPECT_EQ(l.type, kernels::Type::float32);
  EXPECT_EQ(l.ndim, 1);
  EXPECT_EQ(l.numel, 20);
  EXPECT_EQ(l.shape[0], 20);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(l.strides[k][0], 4) << k;  // bytes
  EXPECT_EQ(l.base[0], bytes_of(out));
  EXPECT_EQ(l.base[1], bytes_of(a));
  EXPECT_EQ(l.base[2], bytes_of(b));
  EXPECT_EQ(l.alpha, 2.0);
  EXPECT_EQ(l.threads, 256u);
  EXPECT_EQ(l.blocks, 1u);
}

TEST(CudaElementwisePlan, TransposedBroadcastAndOffsetOperandsKeepTheirStrides) {
  const Tensor out = empty({4, 5}, {.dtype = kFloat16});
  const Tensor a = ones({5, 4}, {.dtype = kFloat16}).t();  // strides (1, 4) elements
  const Tensor row = ones({2, 5}, {.dtype = kFloat16}).select(0, 1).expand({4, 5});  // (0, 1)
  const std::vector<Tensor> in{a, row};
  const ElementwiseArgs args;
  const kernels::Launch l = plan_elementwise_launch(Op::mul, 2, {"mul", out, in, kFloat16, args});
  EXPECT_EQ(l.type, kernels::Type::float16);
  ASSERT_EQ(l.ndim, 2);  // nothing merges: a's dims are the other way round
  EXPECT_EQ(l.shape[0], 4);
  EXPECT_EQ(l.shape[1], 5);
  EXPECT_EQ(l.strides[0][0], 10);  // the output, row-major, 2-byte elements
  EXPECT_EQ(l.strides[0][1], 2);
  EXPECT_EQ(l.strides[1][0], 2);   // a, transposed
  EXPECT_EQ(l.strides[1][1], 8);
  EXPECT_EQ(l.strides[2][0], 0);   // the broadcast row
  EXPECT_EQ(l.strides[2][1], 2);
  EXPECT_EQ(l.base[2], bytes_of(row));
  EXPECT_EQ(row.storage_offset(), 5);  // row 1: the base pointer includes the offset
  EXPECT_EQ(l.alpha, 1.0);  // no alpha given: add/sub's default
}

TEST(CudaElementwisePlan, UnaryLaunchesAndTheirGrid) {
  const Tensor out = empty({3, 1000, 1000}, {.dtype = kBFloat16});
  const std::vector<Tensor> in{ones({3, 1000, 1000}, {.dtype = kBFloat16})};
  const kernels::Launch l =
      plan_elementwise_launch(Op::exp, 1, {"exp", out, in, kBFloat16, ElementwiseArgs{}});
  EXPECT_EQ(l.type, kernels::Type::bfloat16);
  EXPECT_EQ(l.numel, 3'000'000);
  EXPECT_EQ(l.blocks, (3'000'000u + 255) / 256);
  const Tensor big = empty({int64_t(1) << 25}, {.dtype = kFloat64});
  const std::vector<Tensor> big_in{big};
  const kernels::Launch capped =
      plan_elementwise_launch(Op::neg, 1, {"neg", big, big_in, kFloat64, ElementwiseArgs{}});
  EXPECT_EQ(capped.type, kernels::Type::float64);
  EXPECT_EQ(capped.blocks, kElementwiseMaxBlocks);  // the grid-stride loop does the rest
  const Tensor scalar = zeros({2}).select(0, 1);  // 0-d
  const std::vector<Tensor> scalar_in{ones({2}).select(0, 0)};
  const kernels::Launch one =
      plan_elementwise_launch(Op::relu, 1, {"relu", scalar, scalar_in, kFloat32, ElementwiseArgs{}});
  EXPECT_EQ(one.ndim, 0);
  EXPECT_EQ(one.numel, 1);
  EXPECT_EQ(one.blocks, 1u);
}

TEST(CudaElementwisePlan, OtherDtypesAndUnmergeableRanksAreErrors) {
  const Tensor i = arange(4);
  const std::vector<Tensor> in{i, i};
  EXPECT_ERROR(plan_elementwise_launch(Op::add, 2, {"add", i, in, kInt64, ElementwiseArgs{}}),
               "[add] the cuda backend has no int64 kernel yet");
  // 13 dims of size 2, the input's reversed: no two neighbours merge.
  std::vector<int64_t> shape(13, 2), reversed(13);
  for (int64_t d = 0; d < 13; ++d) reversed[size_t(d)] = 12 - d;
  const Tensor out = ember::empty(shape);  // qualified: std::empty is found by ADL
  const std::vector<Tensor> deep{ones(shape).permute(reversed)};
  EXPECT_ERROR(plan_elementwise_launch(Op::neg, 1, {"neg", out, deep, kFloat32, ElementwiseArgs{}}),
               "[neg] the cuda backend's elementwise kernels take at most 12 dimensions that "
               "cannot be merged, got 13");
}

}  // namespace
}  // namespace ember::cuda
