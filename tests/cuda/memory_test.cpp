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

}  // namespace
}  // namespace ember
