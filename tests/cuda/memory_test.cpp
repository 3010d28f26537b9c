// The caching allocator on a real device (its rules are tested over a fake device in
// tests/backend/cuda_caching_allocator_test.cpp): tensors' storages come from it, freed ones stay
// cached, empty_cache returns them, the statistics follow, and a request larger than the device
// is PyTorch's out-of-memory error. Skips with "no CUDA device" on a machine without one.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <string>

#include "test_support.h"

namespace ember {
namespace {

constexpr int64_t MiB = int64_t(1) << 20;

TEST(CudaMemory, TensorsComeFromTheCachingAllocator) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Device gpu("cuda:0");
  cuda::empty_cache();
  cuda::reset_peak_memory_stats(gpu);
  const int64_t allocated0 = cuda::memory_allocated(gpu);
  const int64_t reserved0 = cuda::memory_reserved(gpu);
  {
    const Tensor t = empty({1000}, {.dtype = kFloat32, .device = gpu});  // 4000 B -> 4096 B
    EXPECT_EQ(cuda::memory_allocated(gpu), allocated0 + 4096);
    EXPECT_GE(cuda::memory_reserved(gpu), reserved0);
    const Tensor big = empty({3 * MiB / 4}, {.dtype = kFloat32, .device = gpu});  // 3 MiB
    EXPECT_EQ(cuda::memory_allocated(gpu), allocated0 + 4096 + 3 * MiB);
    EXPECT_EQ(cuda::max_memory_allocated(gpu), allocated0 + 4096 + 3 * MiB);
  }
  EXPECT_EQ(cuda::memory_allocated(gpu), allocated0);
  EXPECT_EQ(cuda::max_memory_allocated(gpu), allocated0 + 4096 + 3 * MiB);
  const int64_t cached = cuda::memory_reserved(gpu);
  EXPECT_GE(cached, reserved0 + 20 * MiB);  // the 3 MiB block's 20 MiB segment stays cached
  {
    const Tensor again = empty({3 * MiB / 4}, {.dtype = kFloat32, .device = gpu});
    EXPECT_EQ(cuda::memory_reserved(gpu), cached);  // reused, no cudaMalloc
  }
  cuda::empty_cache();
  EXPECT_EQ(cuda::memory_reserved(gpu), reserved0);  // both segments went back
  EXPECT_EQ(cuda::max_memory_reserved(gpu), cached);
  cuda::reset_peak_memory_stats(gpu);
  EXPECT_EQ(cuda::max_memory_allocated(gpu), allocated0);

  const auto stats = cuda::memory_stats(gpu);
  EXPECT_EQ(stats.at("allocated_bytes.all.current"), allocated0);
  EXPECT_GE(stats.at("num_device_alloc"), 2);
  const std::string summary = cuda::memory_summary(gpu);
  EXPECT_NE(summary.find("ember CUDA memory summary, device ID 0"), std::string::npos) << summary;
  EXPECT_NE(summary.find("| Allocated memory      |"), std::string::npos) << summary;
}

TEST(CudaMemory, ARequestLargerThanTheDeviceIsPyTorchsOutOfMemoryError) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Device gpu("cuda:0");
  const int64_t ooms = cuda::memory_stats(gpu).at("num_ooms");
  // 2^50 bytes (1 PiB) is more than any device has.
  EXPECT_ERROR(empty({int64_t(1) << 48}, {.dtype = kFloat32, .device = gpu}),
               "[cuda] out of memory. Tried to allocate 1048576.00 GiB. GPU 0 has a total "
               "capacity of ");
  EXPECT_EQ(cuda::memory_stats(gpu).at("num_ooms"), ooms + 1);
  EXPECT_GT(cuda::memory_stats(gpu).at("num_alloc_retries"), 0);
  // The device is still usable afterwards.
  const Tensor t = arange(4, {.dtype = kFloat32}).to(gpu);
  EXPECT_EQ(t.cpu().tolist<float>(), (std::vector<float>{0, 1, 2, 3}));
}

// Tensor::pin_memory on a machine with a device: a copy in pinned host memory (the pinned host
// cache, Note [Pinned host cache]) with the same values and strides; the storage is pinned, so
// every view of it is; pinning a pinned tensor returns it; the copy is differentiable; a CUDA
// tensor cannot be pinned; a freed pinned block is reused for the next request of its size.
TEST(CudaMemory, PinMemoryCopiesIntoPinnedHostMemory) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Tensor t = arange(12.0).reshape({3, 4}).t();  // a transpose keeps its strides
  EXPECT_FALSE(t.is_pinned());
  const Tensor p = t.pin_memory();
  EXPECT_TRUE(p.is_pinned());
  EXPECT_TRUE(p.device().is_cpu());
  EXPECT_EQ(p.strides(), t.strides());
  EXPECT_TRUE(p.equal(t));
  EXPECT_TRUE(p[1].is_pinned());
  EXPECT_TRUE(p.reshape({12}).is_pinned());
  EXPECT_TRUE(p.pin_memory().is_same(p));
  EXPECT_FALSE(t.is_pinned());
  EXPECT_FALSE(p.clone().is_pinned());
  EXPECT_TRUE(empty({0}).pin_memory().is_pinned());
  for (Dtype dtype : {kFloat16, kBFloat16, kInt64, kBool}) {
    const Tensor c = t.to(dtype);
    EXPECT_TRUE(c.pin_memory().equal(c)) << dtype;
  }

  const Tensor x = arange(4.0, {.requires_grad = true});
  (x.pin_memory() * 3).sum().backward();
  EXPECT_TRUE(x.grad().equal(full({4}, 3.0)));

  EXPECT_ERROR(zeros({2}, {.device = Device("cuda:0")}).pin_memory(),
               "[pin_memory] cannot pin a tensor on cuda:0: only dense CPU tensors can be pinned");
  EXPECT_FALSE(zeros({2}, {.device = Device("cuda:0")}).is_pinned());

  const void* first = nullptr;
  {
    const Tensor a = empty({1000}).pin_memory();
    first = a.data_ptr();
  }
  EXPECT_EQ(empty({900}).pin_memory().data_ptr(), first);  // the same 4 KiB block, cached
}

// DataLoader(pin_memory=true) pins every tensor of every batch when a device is present.
TEST(CudaMemory, DataLoaderPinsItsBatches) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  data::TensorDataset ds(arange(20.0).reshape({10, 2}), arange(10));
  for (int64_t workers : {0, 2}) {
    data::DataLoader loader(ds, {.batch_size = 4, .num_workers = workers, .pin_memory = true});
    int64_t seen = 0;
    for (auto& [x, y] : loader) {
      EXPECT_TRUE(x.is_pinned());
      EXPECT_TRUE(y.is_pinned());
      EXPECT_TRUE(y.equal(arange(seen, seen + y.size(0))));
      seen += y.size(0);
    }
    EXPECT_EQ(seen, 10);
  }
}

}  // namespace
}  // namespace ember
