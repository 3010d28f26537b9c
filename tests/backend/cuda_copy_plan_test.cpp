// The host half of the CUDA copy and fill kernels (src/backend/cuda/copy_plan.cpp), over CPU
// tensors so that it runs in every build: the storage types, the strided layout, when a copy is a
// plain memcpy, the fill value's bytes and the errors. A planned copy or fill is also run by the
// kernels' CPU emulation (backend/cuda/emulation.h) and the result compared with the CPU's
// copy_/fill_, so the layout and the conversions are right for transposed, sliced, broadcast
// and 0-d operands. transfer_is_async: which host/device copies run without waiting.
#include "backend/cuda/copy_plan.h"

#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cstring>
#include <utility>

#include "backend/cuda/emulation.h"
#include "test_support.h"

namespace ember::cuda {
namespace {

using kernels::Type;

char* bytes_of(const Tensor& t) { return static_cast<char*>(t.data_ptr()); }

TEST(CudaCopyPlan, ContiguousCopiesOfOneDtypeAreOneMemcpy) {
  const Tensor dst = empty({4, 5}), src = ones({4, 5});
  const kernels::CopyLaunch l = plan_copy_launch(dst, src);
  EXPECT_EQ(l.dst, Type::float32);
  EXPECT_EQ(l.src, Type::float32);
  EXPECT_EQ(l.ndim, 1);
  EXPECT_EQ(l.numel, 20);
  EXPECT_EQ(l.base[0], bytes_of(dst));
  EXPECT_EQ(l.base[1], bytes_of(src));
  EXPECT_EQ(memcpy_bytes(l), 80);
  const Tensor one = empty({}, {.dtype = kInt64});
  EXPECT_EQ(memcpy_bytes(plan_copy_launch(one, full({}, 3, {.dtype = kInt64}))), 8);
}

TEST(CudaCopyPlan, ConversionsAndStridedOperandsNeedTheKernel) {
  const Tensor dst = empty({4, 5}, {.dtype = kFloat16});
  const Tensor converted = ones({4, 5}, {.dtype = kInt64});
  const kernels::CopyLaunch c = plan_copy_launch(dst, converted);
  EXPECT_EQ(c.dst, Type::float16);
  EXPECT_EQ(c.src, Type::int64);
  EXPECT_EQ(c.strides[0][0], 2);  // each operand's own element size
  EXPECT_EQ(c.strides[1][0], 8);
  EXPECT_EQ(memcpy_bytes(c), -1);
  const Tensor transposed = ones({5, 4}, {.dtype = kFloat16}).t();
  const kernels::CopyLaunch t = plan_copy_launch(dst, transposed);
  ASSERT_EQ(t.ndim, 2);
  EXPECT_EQ(t.strides[1][0], 2);
  EXPECT_EQ(t.strides[1][1], 8);
  EXPECT_EQ(memcpy_bytes(t), -1);
  const Tensor row = ones({5}, {.dtype = kFloat16}).expand({4, 5});
  EXPECT_EQ(memcpy_bytes(plan_copy_launch(dst, row)), -1);  // a broadcast source: stride 0
}

// Every pair of the seven storage types, on transposed, sliced, broadcast and 0-d sources:
// the planned copy, run by the emulated kernel, gives the CPU's copy_ bit for bit.
TEST(CudaCopyPlan, WalkingThePlanGivesTheCpusCopy) {
  const Dtype dtypes[] = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kBool};
  const Tensor values = (arange(6 * 7, {.dtype = kFloat64}).reshape({6, 7}) - 20) * 0.75;
  for (Dtype from : dtypes)
    for (Dtype to : dtypes) {
      const Tensor base = values.to(from);
      const std::pair<const char*, Tensor> sources[] = {
          {"transposed", base.t()},
          {"sliced", base.narrow(1, 2, 4).narrow(0, 1, 3)},
          {"broadcast", base.select(0, 2).unsqueeze(0).expand({3, 7})},
          {"0-d", base.select(0, 1).select(0, 3)},
      };
      for (const auto& [name, src] : sources) {
        const Tensor want = empty(src.sizes(), {.dtype = to});
        want.copy_(src);
        // A transposed destination too: the output's strides are planned like the inputs'.
        Tensor got = src.dim() == 2 ? empty({src.size(1), src.size(0)}, {.dtype = to}).t()
                                    : empty(src.sizes(), {.dtype = to});
        got.fill_(0);
        kernels::emulate_copy(plan_copy_launch(got, src));
        EXPECT_TRUE(got.equal(want)) << dtype_name(from) << " -> " << dtype_name(to) << ", "
                                     << name << " source";
      }
    }
}

TEST(CudaCopyPlan, FillsCarryTheValueConvertedToTheDtype) {
  EXPECT_EQ(plan_fill_launch(empty({3}, {.dtype = kFloat16}), 1.5).bits, 0x3E00u);
  EXPECT_EQ(plan_fill_launch(empty({3}, {.dtype = kBFloat16}), 1.5).bits, 0x3FC0u);
  EXPECT_EQ(plan_fill_launch(empty({3}, {.dtype = kInt32}), 2.7).bits, 2u);  // truncated
  EXPECT_EQ(plan_fill_launch(empty({3}, {.dtype = kInt64}), -1).bits, ~uint64_t(0));
  const kernels::FillLaunch b = plan_fill_launch(empty({3}, {.dtype = kBool}), 5);
  EXPECT_EQ(b.itemsize, 1);
  EXPECT_EQ(b.bits, 1u);
  const kernels::FillLaunch u = plan_fill_launch(empty({3}, {.dtype = kUInt8}), 255);
  EXPECT_EQ(u.itemsize, 1);  // fills take every dtype: they only store bytes
  EXPECT_EQ(u.bits, 255u);
  const kernels::FillLaunch d = plan_fill_launch(empty({2}, {.dtype = kFloat64}), 0.1);
  double back;
  std::memcpy(&back, &d.bits, 8);
  EXPECT_EQ(back, 0.1);
}

TEST(CudaCopyPlan, WalkingAFillPlanGivesTheCpusFill) {
  for (Dtype dtype : {kFloat32, kFloat16, kInt64, kUInt8, kBool}) {
    const Tensor base = zeros({5, 6}, {.dtype = dtype});
    const Tensor want = base.clone();
    want.narrow(1, 1, 3).t().fill_(3);
    const Tensor got = base.clone();
    kernels::emulate_fill(plan_fill_launch(got.narrow(1, 1, 3).t(), 3));
    EXPECT_TRUE(got.equal(want)) << dtype_name(dtype);
  }
}

TEST(CudaCopyPlan, SmallIntegerDtypesHaveNoCopyKernelYet) {
  const Tensor u = ones({3}, {.dtype = kUInt8});
  EXPECT_ERROR(plan_copy_launch(empty({3}), u), "[copy_] the cuda backend has no uint8 kernel yet");
  EXPECT_ERROR(plan_copy_launch(empty({3}, {.dtype = kInt16}), ones({3})),
               "[copy_] the cuda backend has no int16 kernel yet");
}

// PyTorch's rule for non_blocking copies between the host and a device: asynchronous only from
// or to pinned memory; otherwise (not asked, unpinned host memory, or two devices) they wait.
TEST(CudaCopyPlan, ANonBlockingCopyIsAsyncOnlyFromOrToPinnedMemory) {
  const Device cpu(kCPU), gpu("cuda:0"), gpu1("cuda:1");
  for (const auto& [dst, src] : {std::pair{gpu, cpu}, std::pair{cpu, gpu}}) {
    EXPECT_TRUE(transfer_is_async(dst, src, /*non_blocking=*/true, /*host_side_pinned=*/true));
    EXPECT_FALSE(transfer_is_async(dst, src, true, false));   // unpinned: synchronous
    EXPECT_FALSE(transfer_is_async(dst, src, false, true));   // not asked: synchronous
    EXPECT_FALSE(transfer_is_async(dst, src, false, false));
  }
  EXPECT_FALSE(transfer_is_async(gpu1, gpu, true, true));  // between devices: still waits
  EXPECT_FALSE(transfer_is_async(gpu, gpu, true, false));
  EXPECT_ERROR(transfer_is_async(cpu, cpu, true, true),
               "[to] expected a CUDA device on one side of the copy, got cpu and cpu");
}

}  // namespace
}  // namespace ember::cuda
