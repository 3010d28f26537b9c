// The CUDA copy and fill kernels (src/backend/cuda/copy.cu, copy.cpp) against the CPU's: zeros,
// full and fill_ on strided views, .contiguous() of transposed/sliced/broadcast tensors, and
// .to(dtype) between float32, float64, float16, bfloat16, int32, int64 and bool, bit for bit;
// non_blocking copies from and to pinned memory on the current stream.
// Skips with "no CUDA device" on a machine without one.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <functional>
#include <utility>
#include <vector>

#include "cuda/op_support.h"
#include "test_support.h"

namespace ember {
namespace {

using cuda_test::gpu;
const Dtype kCopyDtypes[] = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kBool};

Tensor values() { return (arange(9 * 11, {.dtype = kFloat64}).reshape({9, 11}) - 40) * 0.75; }

TEST(CudaCopy, ZerosFullAndFillOnViews) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  for (Dtype dtype : kCopyDtypes) {
    const Tensor z = zeros({5, 7}, {.dtype = dtype, .device = gpu});
    EXPECT_EQ(z.device(), gpu);
    EXPECT_TRUE(z.cpu().equal(zeros({5, 7}, {.dtype = dtype}))) << dtype_name(dtype);
    EXPECT_TRUE(full({4, 3}, 1, {.dtype = dtype, .device = gpu}).cpu().equal(
        full({4, 3}, 1, {.dtype = dtype})))
        << dtype_name(dtype);
    // A strided view: only its elements change.
    const Tensor want = zeros({6, 8}, {.dtype = dtype});
    want.narrow(1, 2, 4).t().fill_(1);
    const Tensor got = zeros({6, 8}, {.dtype = dtype, .device = gpu});
    got.narrow(1, 2, 4).t().fill_(1);
    EXPECT_TRUE(got.cpu().equal(want)) << dtype_name(dtype);
  }
}

TEST(CudaCopy, ContiguousOfTransposedSlicedAndBroadcastViews) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  for (Dtype dtype : kCopyDtypes) {
    const Tensor host = values().to(dtype), dev = host.to(gpu);
    const std::pair<const char*, std::function<Tensor(const Tensor&)>> views[] = {
        {"transposed", [](const Tensor& t) { return t.t(); }},
        {"sliced", [](const Tensor& t) { return t.narrow(0, 2, 5).slice(1, 1, 11, 3); }},
        {"broadcast", [](const Tensor& t) { return t.select(0, 3).unsqueeze(0).expand({4, 11}); }},
    };
    for (const auto& [name, view] : views) {
      const Tensor got = view(dev).contiguous();
      EXPECT_TRUE(got.is_contiguous());
      EXPECT_EQ(got.device(), gpu);
      EXPECT_TRUE(got.cpu().equal(view(host).contiguous())) << dtype_name(dtype) << " " << name;
    }
  }
}

TEST(CudaCopy, ConversionsBetweenEveryPairOfDtypesMatchTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  for (Dtype from : kCopyDtypes)
    for (Dtype to : kCopyDtypes) {
      const Tensor host = values().to(from);
      const Tensor dev = host.to(gpu);
      const Tensor got = dev.to(to), strided = dev.t().to(to);
      EXPECT_EQ(got.device(), gpu);
      EXPECT_EQ(got.dtype(), to);
      EXPECT_TRUE(got.cpu().equal(host.to(to))) << dtype_name(from) << " -> " << dtype_name(to);
      EXPECT_TRUE(strided.contiguous().cpu().equal(host.t().to(to).contiguous()))
          << dtype_name(from) << " -> " << dtype_name(to) << ", transposed";
    }
}

TEST(CudaCopy, CopyIntoAViewAndSmallIntegerDtypes) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Tensor dst = zeros({6, 6}, {.device = gpu}), want = zeros({6, 6});
  const Tensor src = arange(9, {.dtype = kInt64}).reshape({3, 3});
  dst.slice(0, 0, 6, 2).slice(1, 1, 4).copy_(src.to(gpu));
  want.slice(0, 0, 6, 2).slice(1, 1, 4).copy_(src);
  EXPECT_TRUE(dst.cpu().equal(want));
  const Tensor u = ones({3}, {.dtype = kUInt8, .device = gpu});  // a byte fill needs no kernel type
  EXPECT_ERROR(u.to(kFloat32), "[copy_] the cuda backend has no uint8 kernel yet");
}

// non_blocking copies: from pinned memory they are queued on the current stream (a side stream
// under a StreamGuard too) and need a synchronize before the host reads; a non_blocking copy to
// the CPU lands in pinned memory, as PyTorch's _to_copy; from unpinned memory they are
// synchronous. A pinned temporary freed while its copy runs is not reused before the copy ends
// (the host cache's events): 16 queued copies of freed pinned tensors all arrive intact.
TEST(CudaCopy, NonBlockingCopiesFromAndToPinnedMemory) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const int64_t n = int64_t(1) << 22;
  const Tensor host = arange(n, {.dtype = kFloat32}).pin_memory();
  const Tensor dev = host.to(gpu, /*non_blocking=*/true);
  const Tensor back = dev.to(Device(kCPU), /*non_blocking=*/true);
  EXPECT_TRUE(back.is_pinned());
  cuda::synchronize();
  EXPECT_TRUE(back.equal(host));
  const Tensor dst = empty({n}).pin_memory();
  dst.copy_(dev, /*non_blocking=*/true);
  cuda::current_stream().synchronize();
  EXPECT_TRUE(dst.equal(host));
  EXPECT_FALSE(dev.to(Device(kCPU)).is_pinned());

  const cuda::Stream side;
  Tensor on_side;
  {
    const cuda::StreamGuard guard(side);
    on_side = (host * 2).pin_memory().to(gpu, true);
  }
  side.synchronize();
  EXPECT_TRUE(on_side.cpu().equal(host * 2));

  const Tensor plain = arange(n, {.dtype = kFloat32});  // unpinned: done when to() returns
  EXPECT_TRUE(plain.to(gpu, true).cpu().equal(plain));

  std::vector<Tensor> copies;
  for (int i = 0; i < 16; ++i) copies.push_back(full({n}, float(i)).pin_memory().to(gpu, true));
  cuda::synchronize();
  for (int i = 0; i < 16; ++i) EXPECT_TRUE(copies[size_t(i)].cpu().equal(full({n}, float(i)))) << i;
}

}  // namespace
}  // namespace ember
