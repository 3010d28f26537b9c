// The caching CPU allocator (include/ember/allocator.h, Note [Caching CPU allocator]): freed
// blocks are reused, blocks are 64-byte aligned, empty_cache() and the cache limit return memory
// to the system, and concurrent use is safe. Stats are process-wide, so every check is a delta.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

using namespace ember;

namespace {

constexpr size_t kMiB = size_t(1) << 20;

// Restores a generous cache limit however a test ends.
struct CacheLimitGuard {
  ~CacheLimitGuard() { cpu::set_cache_limit(size_t(1) << 30); }
};

uintptr_t address(const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()); }

void expect_reused(int64_t numel) {
  CacheLimitGuard guard;
  cpu::set_cache_limit(size_t(1) << 30);
  uintptr_t first;
  { first = address(empty({numel}, {.dtype = kUInt8})); }  // allocated, then cached
  const CpuAllocatorStats before = cpu::allocator_stats();
  uintptr_t second;
  {
    Tensor t = empty({numel}, {.dtype = kUInt8});
    second = address(t);
    const CpuAllocatorStats during = cpu::allocator_stats();
    EXPECT_EQ(during.cache_hits, before.cache_hits + 1);
    EXPECT_EQ(during.system_allocations, before.system_allocations);
    EXPECT_GE(during.allocated_bytes, before.allocated_bytes + size_t(numel));
    EXPECT_LT(during.cached_bytes, before.cached_bytes);
  }
  EXPECT_EQ(second, first);  // the very same block
  const CpuAllocatorStats after = cpu::allocator_stats();
  EXPECT_EQ(after.allocated_bytes, before.allocated_bytes);
  EXPECT_EQ(after.cached_bytes, before.cached_bytes);
}

}  // namespace

TEST(Allocator, SmallBlockIsReused) { expect_reused(100); }

TEST(Allocator, MediumBlockIsReused) { expect_reused(100 * 1024 + 7); }

TEST(Allocator, LargeBlockIsReused) { expect_reused(int64_t(64 * kMiB)); }

TEST(Allocator, SizesInOneClassShareBlocks) {
  CacheLimitGuard guard;
  uintptr_t first;
  { first = address(empty({1000}, {.dtype = kUInt8})); }
  // 1000 and 1010 bytes round to the same 1 KiB class.
  const auto before = cpu::allocator_stats();
  Tensor t = empty({1010}, {.dtype = kUInt8});
  EXPECT_EQ(address(t), first);
  EXPECT_EQ(cpu::allocator_stats().cache_hits, before.cache_hits + 1);
}

TEST(Allocator, DataIs64ByteAligned) {
  std::vector<Tensor> keep;  // all alive at once, so none reuses another's block
  for (int64_t n : std::initializer_list<int64_t>{1, 3, 17, 63, 64, 65, 1000, 1025, 4097, 100000,
                                                  int64_t(3 * kMiB) + 5}) {
    keep.push_back(empty({n}, {.dtype = kUInt8}));
    EXPECT_EQ(address(keep.back()) % 64, 0u) << n << " bytes";
    keep.push_back(empty({n}, {.dtype = kFloat64}));
    EXPECT_EQ(address(keep.back()) % 64, 0u) << n << " doubles";
  }
  // Zero bytes need no memory at all.
  EXPECT_EQ(empty({0}).storage()->nbytes(), 0u);
}

TEST(Allocator, BlocksAreUsableToTheLastByte) {
  for (int64_t n : std::initializer_list<int64_t>{1, 65, 1025, int64_t(2 * kMiB) + 1}) {
    Tensor t = empty({n}, {.dtype = kUInt8});
    std::memset(t.data_ptr(), 0xab, size_t(n));
    EXPECT_EQ(static_cast<uint8_t*>(t.data_ptr())[n - 1], 0xab);
  }
}

TEST(Allocator, EmptyCacheReleasesEverything) {
  { Tensor a = empty({1 << 16}), b = empty({int64_t(4 * kMiB)}), c = empty({10}); }
  EXPECT_GT(cpu::allocator_stats().cached_bytes, 0u);
  cpu::empty_cache();
  const auto stats = cpu::allocator_stats();
  EXPECT_EQ(stats.cached_bytes, 0u);
  // The next allocation of that size is a system allocation again.
  const auto before = cpu::allocator_stats();
  Tensor t = empty({1 << 16});
  const auto after = cpu::allocator_stats();
  EXPECT_EQ(after.system_allocations, before.system_allocations + 1);
  EXPECT_EQ(after.cache_hits, before.cache_hits);
}

TEST(Allocator, ZeroCacheLimitFreesToTheSystem) {
  CacheLimitGuard guard;
  { Tensor warm = empty({4096}); }
  cpu::set_cache_limit(0);  // also drops what is cached now
  EXPECT_EQ(cpu::allocator_stats().cached_bytes, 0u);
  for (int i = 0; i < 3; ++i) {
    const auto before = cpu::allocator_stats();
    { Tensor t = empty({4096}); }
    { Tensor big = empty({int64_t(8 * kMiB)}); }
    const auto after = cpu::allocator_stats();
    EXPECT_EQ(after.system_allocations, before.system_allocations + 2);
    EXPECT_EQ(after.cache_hits, before.cache_hits);
    EXPECT_EQ(after.cached_bytes, 0u);
  }
}

TEST(Allocator, LimitBoundsTheCache) {
  CacheLimitGuard guard;
  cpu::empty_cache();
  cpu::set_cache_limit(3 * kMiB);
  {
    Tensor a = empty({int64_t(2 * kMiB)}, {.dtype = kUInt8}),
           b = empty({int64_t(2 * kMiB)}, {.dtype = kUInt8});
  }
  // Only one 2 MiB block fits under the 3 MiB cap; the other went back to the system.
  EXPECT_EQ(cpu::allocator_stats().cached_bytes, 2 * kMiB);
}

TEST(Allocator, PeakAndLiveBytes) {
  const auto before = cpu::allocator_stats();
  {
    Tensor t = empty({int64_t(kMiB)}, {.dtype = kUInt8});
    const auto during = cpu::allocator_stats();
    EXPECT_EQ(during.allocated_bytes, before.allocated_bytes + kMiB);  // 1 MiB is a class size
    EXPECT_GE(during.peak_allocated_bytes, during.allocated_bytes);
  }
  EXPECT_EQ(cpu::allocator_stats().allocated_bytes, before.allocated_bytes);
}

TEST(Allocator, ConcurrentAllocationIsSafe) {
  CacheLimitGuard guard;
  const auto before = cpu::allocator_stats();
  constexpr int kThreads = 8, kIterations = 2000;
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int id = 0; id < kThreads; ++id) {
    threads.emplace_back([id, &bad] {
      std::vector<Tensor> live;
      for (int i = 0; i < kIterations; ++i) {
        const int64_t n = 1 + (i * 7919 + id * 104729) % 50000;
        Tensor t = empty({n}, {.dtype = kUInt8});
        auto* p = static_cast<uint8_t*>(t.data_ptr());
        if (reinterpret_cast<uintptr_t>(p) % 64 != 0) ++bad;
        std::memset(p, id + 1, size_t(n));
        live.push_back(t);
        if (live.size() > 16) {
          // Nobody else wrote into our blocks while we held them.
          const Tensor& old = live.front();
          const auto* q = static_cast<const uint8_t*>(old.data_ptr());
          for (int64_t k = 0; k < old.numel(); k += 97)
            if (q[k] != uint8_t(id + 1)) ++bad;
          live.erase(live.begin());
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
  const auto after = cpu::allocator_stats();
  EXPECT_EQ(after.allocated_bytes, before.allocated_bytes);
  EXPECT_GT(after.cache_hits, before.cache_hits);
}
