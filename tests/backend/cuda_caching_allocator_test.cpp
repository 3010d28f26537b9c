// The caching device allocator's bookkeeping (src/backend/cuda/caching_allocator.cpp) over a
// fake device whose segments are host memory: PyTorch's rounding, pools, splitting, merging,
// per-stream reuse, record_stream's delayed reuse (fake streams and events), empty_cache, the
// retry after an out-of-memory and its message, the statistics as memory_stats() and
// memory_summary() present them, and the pinned host cache. Runs in every build.
#include "backend/cuda/caching_allocator.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "test_support.h"

namespace ember::cuda {
namespace {

constexpr size_t MiB = size_t(1) << 20;

// A device of `capacity` bytes whose segments are host memory; counts the driver calls. Like a
// driver tearing down its context, it frees what is still allocated when it goes.
class FakeDevice final : public SegmentSource {
 public:
  explicit FakeDevice(size_t capacity = size_t(1) << 30) : capacity_(capacity) {}
  ~FakeDevice() override {
    for (void* p : live_) std::free(p);
  }
  void* allocate(size_t nbytes) override {
    ++allocations;
    if (used_ + nbytes > capacity_) return nullptr;
    used_ += nbytes;
    return *live_.insert(std::aligned_alloc(512, nbytes)).first;
  }
  void free(void* ptr, size_t nbytes) override {
    ++frees;
    EXPECT_EQ(live_.erase(ptr), 1u) << "a segment freed twice or never allocated";
    used_ -= nbytes;
    std::free(ptr);
  }
  std::pair<size_t, size_t> mem_info() override { return {capacity_ - used_, capacity_}; }
  size_t used() const { return used_; }
  int allocations = 0, frees = 0;

 private:
  size_t capacity_, used_ = 0;
  std::set<void*> live_;
};

// A segment's blocks as (size, allocated) pairs, in address order.
std::vector<std::pair<size_t, bool>> layout(const SegmentSnapshot& s) {
  std::vector<std::pair<size_t, bool>> out;
  for (const auto& b : s.blocks) out.emplace_back(b.size, b.allocated);
  return out;
}

TEST(CudaCachingAllocator, RoundsAndSizesSegmentsAsPyTorch) {
  EXPECT_EQ(round_size(1), 512u);
  EXPECT_EQ(round_size(512), 512u);
  EXPECT_EQ(round_size(513), 1024u);
  EXPECT_EQ(segment_size_for(512), 2 * MiB);        // small: packed in 2 MiB segments
  EXPECT_EQ(segment_size_for(1 * MiB), 2 * MiB);
  EXPECT_EQ(segment_size_for(1 * MiB + 512), 20 * MiB);  // 1-10 MiB: a 20 MiB segment
  EXPECT_EQ(segment_size_for(10 * MiB - 512), 20 * MiB);
  EXPECT_EQ(segment_size_for(10 * MiB), 10 * MiB);  // larger: rounded to 2 MiB
  EXPECT_EQ(segment_size_for(11 * MiB + 512), 12 * MiB);
  EXPECT_EQ(format_size(1024), "1024 bytes");
  EXPECT_EQ(format_size(1536), "1.50 KiB");
  EXPECT_EQ(format_size(20 * MiB), "20.00 MiB");
  EXPECT_EQ(format_size(size_t(3) << 30), "3.00 GiB");
}

TEST(CudaCachingAllocator, ASmallRequestSplitsA2MiBSegmentAndIsReusedAfterFree) {
  FakeDevice device;
  CachingAllocator alloc(0, device);
  void* a = alloc.allocate(1000, 0);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(device.allocations, 1);
  DeviceStats s = alloc.stats();
  EXPECT_EQ(s.allocated_bytes[kAllPools].current, 1024);
  EXPECT_EQ(s.allocated_bytes[kSmallPool].current, 1024);
  EXPECT_EQ(s.allocated_bytes[kLargePool].current, 0);
  EXPECT_EQ(s.requested_bytes[kAllPools].current, 1000);
  EXPECT_EQ(s.reserved_bytes[kAllPools].current, int64_t(2 * MiB));
  EXPECT_EQ(s.segment[kSmallPool].current, 1);
  EXPECT_EQ(s.inactive_split[kAllPools].current, 1);  // the rest of the segment, cached
  EXPECT_EQ(s.inactive_split_bytes[kAllPools].current, int64_t(2 * MiB - 1024));
  auto segments = alloc.snapshot();
  ASSERT_EQ(segments.size(), 1u);
  EXPECT_TRUE(segments[0].small_pool);
  EXPECT_EQ(layout(segments[0]), (std::vector<std::pair<size_t, bool>>{{1024, true},
                                                                       {2 * MiB - 1024, false}}));

  alloc.free(a);
  s = alloc.stats();
  EXPECT_EQ(s.allocated_bytes[kAllPools].current, 0);
  EXPECT_EQ(s.allocated_bytes[kAllPools].peak, 1024);
  EXPECT_EQ(s.allocated_bytes[kAllPools].freed, 1024);
  EXPECT_EQ(s.reserved_bytes[kAllPools].current, int64_t(2 * MiB));  // cached, not returned
  EXPECT_EQ(s.inactive_split[kAllPools].current, 0);  // merged back into one free segment
  EXPECT_EQ(s.inactive_split_bytes[kAllPools].current, 0);
  EXPECT_EQ(layout(alloc.snapshot()[0]), (std::vector<std::pair<size_t, bool>>{{2 * MiB, false}}));

  EXPECT_EQ(alloc.allocate(700, 0), a);  // the cached segment, no new driver call
  EXPECT_EQ(device.allocations, 1);
  EXPECT_EQ(alloc.stats().allocation[kAllPools].allocated, 2);
}

TEST(CudaCachingAllocator, FreedNeighboursMergeAndTheBestFitIsTaken) {
  FakeDevice device;
  CachingAllocator alloc(0, device);
  char* a = static_cast<char*>(alloc.allocate(4096, 0));
  char* b = static_cast<char*>(alloc.allocate(4096, 0));
  char* c = static_cast<char*>(alloc.allocate(4096, 0));
  EXPECT_EQ(b, a + 4096);  // carved from one segment in address order
  EXPECT_EQ(c, b + 4096);
  alloc.free(b);
  using L = std::vector<std::pair<size_t, bool>>;
  const size_t rest = 2 * MiB - 3 * 4096;
  EXPECT_EQ(layout(alloc.snapshot()[0]), (L{{4096, true}, {4096, false}, {4096, true}, {rest, false}}));
  EXPECT_EQ(alloc.stats().inactive_split[kAllPools].current, 2);
  EXPECT_EQ(alloc.stats().inactive_split_bytes[kAllPools].current, int64_t(4096 + rest));

  // The 4 KiB hole is the best fit for 2 KiB, before the big rest of the segment.
  char* d = static_cast<char*>(alloc.allocate(2048, 0));
  EXPECT_EQ(d, b);
  EXPECT_EQ(layout(alloc.snapshot()[0]),
            (L{{4096, true}, {2048, true}, {2048, false}, {4096, true}, {rest, false}}));
  alloc.free(d);
  alloc.free(a);  // merges with the free block after it
  EXPECT_EQ(layout(alloc.snapshot()[0]), (L{{8192, false}, {4096, true}, {rest, false}}));
  alloc.free(c);  // merges both sides: the segment is whole again
  EXPECT_EQ(layout(alloc.snapshot()[0]), (L{{2 * MiB, false}}));
  EXPECT_EQ(alloc.stats().inactive_split[kAllPools].current, 0);
  EXPECT_EQ(alloc.stats().active[kAllPools].current, 0);
  EXPECT_EQ(device.allocations, 1);
}

TEST(CudaCachingAllocator, LargeRequestsSplitOnlyWhenMoreThan1MiBRemains) {
  FakeDevice device;
  CachingAllocator alloc(0, device);
  void* a = alloc.allocate(3 * MiB, 0);  // a 20 MiB segment, 17 MiB kept as a free block
  using L = std::vector<std::pair<size_t, bool>>;
  EXPECT_EQ(layout(alloc.snapshot()[0]), (L{{3 * MiB, true}, {17 * MiB, false}}));
  EXPECT_FALSE(alloc.snapshot()[0].small_pool);
  alloc.free(a);
  // 19.5 MiB fits the cached 20 MiB segment; the 0.5 MiB rest is not worth a block.
  void* b = alloc.allocate(19 * MiB + MiB / 2, 0);
  EXPECT_EQ(b, a);
  EXPECT_EQ(layout(alloc.snapshot()[0]), (L{{20 * MiB, true}}));
  const DeviceStats s = alloc.stats();
  EXPECT_EQ(s.allocated_bytes[kLargePool].current, int64_t(20 * MiB));
  EXPECT_EQ(s.requested_bytes[kLargePool].current, int64_t(19 * MiB + MiB / 2));
  EXPECT_EQ(device.allocations, 1);
  // A request of 10 MiB or more gets a segment of its own size (rounded to 2 MiB).
  void* c = alloc.allocate(11 * MiB, 0);
  const auto segments = alloc.snapshot();
  ASSERT_EQ(segments.size(), 2u);
  const SegmentSnapshot& own = segments[0].address == uintptr_t(c) ? segments[0] : segments[1];
  EXPECT_EQ(own.address, uintptr_t(c));
  EXPECT_EQ(layout(own), (L{{12 * MiB, true}}));  // the 1 MiB rest stays part of the block
}

TEST(CudaCachingAllocator, BlocksAreReusedOnlyOnTheirStream) {
  FakeDevice device;
  CachingAllocator alloc(0, device);
  void* a = alloc.allocate(4096, /*stream=*/1);
  alloc.free(a);
  void* b = alloc.allocate(4096, /*stream=*/2);  // stream 1's cache is not stream 2's
  EXPECT_NE(b, a);
  EXPECT_EQ(device.allocations, 2);
  EXPECT_EQ(alloc.allocate(4096, 1), a);
  EXPECT_EQ(device.allocations, 2);
  const auto segments = alloc.snapshot();
  ASSERT_EQ(segments.size(), 2u);
  EXPECT_NE(segments[0].stream, segments[1].stream);
}

TEST(CudaCachingAllocator, EmptyCacheReturnsOnlyWhollyFreeSegments) {
  FakeDevice device;
  CachingAllocator alloc(0, device);
  void* small = alloc.allocate(1000, 0);
  void* large = alloc.allocate(3 * MiB, 0);
  void* huge = alloc.allocate(18 * MiB, 0);  // does not fit the 17 MiB rest of large's segment
  alloc.free(large);
  alloc.free(huge);
  EXPECT_EQ(alloc.stats().reserved_bytes[kAllPools].current, int64_t(40 * MiB));
  alloc.empty_cache();
  DeviceStats s = alloc.stats();
  EXPECT_EQ(device.frees, 2);  // the large segments; the small one holds a live block
  EXPECT_EQ(device.used(), 2 * MiB);
  EXPECT_EQ(s.reserved_bytes[kAllPools].current, int64_t(2 * MiB));
  EXPECT_EQ(s.reserved_bytes[kAllPools].peak, int64_t(40 * MiB));
  EXPECT_EQ(s.segment[kLargePool].current, 0);
  EXPECT_EQ(s.segment[kLargePool].freed, 2);
  EXPECT_EQ(s.num_device_alloc, 3);
  EXPECT_EQ(s.num_device_free, 2);
  EXPECT_EQ(s.allocated_bytes[kAllPools].current, 1024);
  alloc.free(small);
  alloc.empty_cache();
  EXPECT_EQ(device.used(), 0u);
  EXPECT_EQ(alloc.stats().reserved_bytes[kAllPools].current, 0);
  EXPECT_TRUE(alloc.snapshot().empty());
}

TEST(CudaCachingAllocator, PeaksResetToTheCurrentValues) {
  FakeDevice device;
  CachingAllocator alloc(0, device);
  void* a = alloc.allocate(12 * MiB, 0);
  void* b = alloc.allocate(12 * MiB, 0);
  alloc.free(b);
  DeviceStats s = alloc.stats();
  EXPECT_EQ(s.allocated_bytes[kAllPools].peak, int64_t(24 * MiB));
  EXPECT_EQ(s.allocation[kAllPools].peak, 2);
  alloc.reset_peak_stats();
  s = alloc.stats();
  EXPECT_EQ(s.allocated_bytes[kAllPools].peak, int64_t(12 * MiB));
  EXPECT_EQ(s.reserved_bytes[kAllPools].peak, int64_t(24 * MiB));  // b's segment is cached
  EXPECT_EQ(s.allocation[kAllPools].peak, 1);
  EXPECT_EQ(s.allocated_bytes[kAllPools].allocated, int64_t(24 * MiB));  // history is kept
  alloc.reset_accumulated_stats();
  s = alloc.stats();
  EXPECT_EQ(s.allocated_bytes[kAllPools].allocated, 0);
  EXPECT_EQ(s.allocated_bytes[kAllPools].current, int64_t(12 * MiB));
  EXPECT_EQ(s.num_device_alloc, 0);
  alloc.free(a);
}

TEST(CudaCachingAllocator, OutOfMemoryEmptiesTheCacheRetriesThenSaysWhatIsHeld) {
  FakeDevice device(24 * MiB);
  CachingAllocator alloc(0, device);
  alloc.free(alloc.allocate(11 * MiB, 0));  // a cached 12 MiB segment
  // 14 MiB neither fits it nor beside it: the cached segment goes back and the retry succeeds.
  void* a = alloc.allocate(14 * MiB, 0);
  ASSERT_NE(a, nullptr);
  DeviceStats s = alloc.stats();
  EXPECT_EQ(s.num_alloc_retries, 1);
  EXPECT_EQ(s.num_device_free, 1);
  EXPECT_EQ(s.num_ooms, 0);
  EXPECT_EQ(s.reserved_bytes[kAllPools].current, int64_t(14 * MiB));
  // Nothing cached is left to release: the error names the request and what is held.
  void* keep = alloc.allocate(1000, 0);  // a 2 MiB small segment, mostly cached
  EXPECT_ERROR(alloc.allocate(16 * MiB, 0),
               "[cuda] out of memory. Tried to allocate 16.00 MiB. GPU 0 has a total capacity of "
               "24.00 MiB of which 8.00 MiB is free. Of the allocated memory 14.00 MiB is "
               "allocated by ember, and 2.00 MiB is reserved by ember but unallocated.");
  s = alloc.stats();
  EXPECT_EQ(s.num_ooms, 1);
  EXPECT_EQ(s.num_alloc_retries, 2);
  EXPECT_EQ(s.allocated_bytes[kAllPools].current, int64_t(14 * MiB + 1024));  // unchanged
  alloc.free(keep);
  alloc.free(a);
  EXPECT_NE(alloc.allocate(16 * MiB, 0), nullptr);  // after the frees, the retry finds room
}

TEST(CudaCachingAllocator, FreeingAPointerItDidNotAllocateIsAnError) {
  FakeDevice device;
  CachingAllocator alloc(0, device);
  int x = 0;
  EXPECT_ERROR(alloc.free(&x), "[cuda.free] the caching allocator of cuda:0 did not allocate");
  EXPECT_EQ(alloc.allocate(0, 0), nullptr);  // an empty storage needs no block
  EXPECT_EQ(device.allocations, 0);
}

TEST(CudaCachingAllocator, MemoryStatsHasPyTorchsKeys) {
  FakeDevice device;
  CachingAllocator alloc(0, device);
  void* a = alloc.allocate(3 * MiB, 0);
  const auto stats = memory_stats_dict(alloc.stats());
  // 9 per-pool statistics x 3 pools x 4 values, 2 oversize x 4, and 6 counters.
  EXPECT_EQ(stats.size(), 9u * 3 * 4 + 2 * 4 + 6);
  EXPECT_EQ(stats.at("allocated_bytes.all.current"), int64_t(3 * MiB));
  EXPECT_EQ(stats.at("allocated_bytes.large_pool.peak"), int64_t(3 * MiB));
  EXPECT_EQ(stats.at("allocated_bytes.small_pool.current"), 0);
  EXPECT_EQ(stats.at("reserved_bytes.all.current"), int64_t(20 * MiB));
  EXPECT_EQ(stats.at("segment.large_pool.allocated"), 1);
  EXPECT_EQ(stats.at("allocation.all.current"), 1);
  EXPECT_EQ(stats.at("active_bytes.all.current"), int64_t(3 * MiB));
  EXPECT_EQ(stats.at("inactive_split_bytes.all.current"), int64_t(17 * MiB));
  EXPECT_EQ(stats.at("inactive_split.large_pool.current"), 1);
  EXPECT_EQ(stats.at("requested_bytes.all.current"), int64_t(3 * MiB));
  EXPECT_EQ(stats.at("num_device_alloc"), 1);
  EXPECT_EQ(stats.at("max_split_size"), -1);
  EXPECT_EQ(stats.at("oversize_allocations.current"), 0);
  EXPECT_EQ(stats.count("num_ooms"), 1u);
  EXPECT_EQ(stats.count("num_alloc_retries"), 1u);
  EXPECT_EQ(stats.count("num_sync_all_streams"), 1u);
  alloc.free(a);
}

TEST(CudaCachingAllocator, MemorySummaryIsPyTorchsTable) {
  FakeDevice device;
  CachingAllocator alloc(0, device);
  alloc.free(alloc.allocate(1000, 0));
  void* large = alloc.allocate(3 * MiB, 0);
  const std::string table = memory_summary_table(alloc.stats(), 0, false);
  // Rows as torch/cuda/memory.py formats them for the same figures (its unit follows the
  // "all" row: KiB until 768 KiB of it, and so on).
  for (const char* line : {
           "|==========================================================================="
           "|\n|                    ember CUDA memory summary, device ID 0                 |\n",
           "|            CUDA OOMs: 0            |        cudaMalloc retries: 0         |\n",
           "|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |\n",
           "| Allocated memory      |   3072 KiB |   3072 KiB |   3073 KiB |   1024 B   |\n"
           "|       from large pool |   3072 KiB |   3072 KiB |   3072 KiB |      0 B   |\n"
           "|       from small pool |      0 KiB |      1 KiB |      1 KiB |   1024 B   |\n",
           "| GPU reserved memory   |  22528 KiB |  22528 KiB |  22528 KiB |      0 B   |\n",
           "| Allocations           |       1    |       1    |       2    |       1    |\n",
           "| Oversize GPU segments |       0    |       0    |       0    |       0    |\n"
           "|===========================================================================|\n"}) {
    EXPECT_NE(table.find(line), std::string::npos) << line << "\nnot in\n" << table;
  }
  size_t lines = 0;
  for (size_t start = 0; start < table.size();) {
    const size_t end = table.find('\n', start);
    EXPECT_EQ(end - start, 77u) << table.substr(start, end - start);  // | + 75 columns + |
    start = end + 1;
    ++lines;
  }
  EXPECT_EQ(lines, 6u + 9 * 4 + 2 * 2 + 1);
  const std::string brief = memory_summary_table(alloc.stats(), 3, true);
  EXPECT_EQ(brief.find("from large pool"), std::string::npos);
  EXPECT_NE(brief.find("device ID 3 "), std::string::npos);
  alloc.free(large);
}

// Work on a fake stream: done when the flag it watches says so; waiting on it finishes it.
struct FakeWork final : PendingWork {
  explicit FakeWork(bool& finished) : finished(finished) {}
  bool done() override { return finished; }
  void wait() override { finished = true; }
  bool& finished;
};

// The fake device's streams: each records work whose completion the test controls per stream.
struct FakeStreams final : StreamEvents {
  std::unique_ptr<PendingWork> record(StreamId stream) override {
    ++recorded[stream];
    return std::make_unique<FakeWork>(finished[stream]);
  }
  std::map<StreamId, bool> finished;
  std::map<StreamId, int> recorded;
};

// record_stream (PyTorch's recordStream): a block used on another stream is, at its free, not
// reusable (not even by a request on its own stream, and not merged with its free neighbour)
// until the work queued on that stream up to the free is done; allocated bytes drop at the
// free, active ones when the block is back. empty_cache (and the out-of-memory retry) wait for
// the streams. The block's own stream and empty storages record nothing.
TEST(CudaCachingAllocator, RecordStreamDelaysReuseUntilTheOtherStreamIsDone) {
  FakeDevice device;
  FakeStreams streams;
  CachingAllocator allocator(0, device, &streams);
  constexpr StreamId kMain = 0, kSide = 7, kThird = 9;
  void* a = allocator.allocate(1000, kMain);  // a 2 MiB segment: [a | rest]
  allocator.record_stream(a, kSide);
  allocator.record_stream(a, kSide);   // once per stream
  allocator.record_stream(a, kMain);   // its own stream: nothing to wait for
  allocator.record_stream(nullptr, kSide);
  allocator.free(a);
  EXPECT_EQ(streams.recorded[kSide], 1);
  EXPECT_EQ(streams.recorded.count(kMain), 0u);
  EXPECT_EQ(allocator.stats().allocated_bytes[kAllPools].current, 0);
  EXPECT_EQ(allocator.stats().active_bytes[kAllPools].current, 1024);
  EXPECT_FALSE(allocator.owns(a));
  void* b = allocator.allocate(1000, kMain);  // the side stream still runs: not a
  EXPECT_NE(b, a);
  allocator.free(b);  // b merges with the free rest, not with the pending a
  EXPECT_EQ(layout(allocator.snapshot().at(0)),
            (std::vector<std::pair<size_t, bool>>{{1024, true}, {kSmallBuffer - 1024, false}}));
  streams.finished[kSide] = true;
  void* c = allocator.allocate(1000, kMain);  // done: a is back, merged, and the best fit again
  EXPECT_EQ(c, a);
  EXPECT_EQ(allocator.stats().active_bytes[kAllPools].current, 1024);

  allocator.record_stream(c, kSide);
  allocator.record_stream(c, kThird);
  streams.finished[kSide] = false;
  allocator.free(c);
  EXPECT_EQ(streams.recorded[kSide], 2);
  EXPECT_EQ(streams.recorded[kThird], 1);
  allocator.empty_cache();  // waits for both streams, then the whole segment goes
  EXPECT_TRUE(streams.finished[kSide] && streams.finished[kThird]);
  EXPECT_EQ(allocator.stats().active_bytes[kAllPools].current, 0);
  EXPECT_EQ(allocator.stats().reserved_bytes[kAllPools].current, 0);
  EXPECT_EQ(device.frees, 1);
  EXPECT_ERROR(allocator.record_stream(a, kSide), "[record_stream] the caching allocator of "
                                                  "cuda:0 did not allocate");

  CachingAllocator without_events(1, device);
  void* d = without_events.allocate(512, kMain);
  EXPECT_ERROR(without_events.record_stream(d, kSide), "was made without events");
  without_events.free(d);
}

// The pinned host cache (Note [Pinned host cache]) over the same fake source: sizes round to a
// power of two, a freed block is handed out again for the same rounded size without asking the
// source, owns() follows the blocks in use, and an exhausted source is retried after the cache
// is emptied, then refused with a message.
TEST(CudaHostBlockCache, RoundsToPowersOfTwoAndReusesFreedBlocks) {
  EXPECT_EQ(HostBlockCache::block_size(0), 1u);
  EXPECT_EQ(HostBlockCache::block_size(1), 1u);
  EXPECT_EQ(HostBlockCache::block_size(1000), 1024u);
  EXPECT_EQ(HostBlockCache::block_size(1024), 1024u);
  EXPECT_EQ(HostBlockCache::block_size(1025), 2048u);
  FakeDevice host;
  HostBlockCache cache(host);
  void* a = cache.allocate(1000);
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(cache.owns(a));
  EXPECT_EQ(host.used(), 1024u);
  EXPECT_EQ(cache.stats().allocated_bytes, 1024u);
  cache.free(a);
  EXPECT_FALSE(cache.owns(a));
  EXPECT_EQ(cache.stats().allocated_bytes, 0u);
  EXPECT_EQ(cache.stats().cached_bytes, 1024u);
  void* b = cache.allocate(600);  // a different size of the same class: the cached block
  EXPECT_EQ(b, a);
  EXPECT_TRUE(cache.owns(b));
  EXPECT_EQ(host.allocations, 1);
  EXPECT_EQ(cache.stats().cache_hits, 1u);
  void* c = cache.allocate(1000);  // the only block of its class is in use: a new one
  EXPECT_NE(c, b);
  void* d = cache.allocate(4096);
  EXPECT_EQ(host.allocations, 3);
  EXPECT_EQ(cache.stats().source_allocations, 3u);
  cache.free(b);
  cache.free(d);
  EXPECT_EQ(cache.stats().cached_bytes, 1024u + 4096u);
  cache.empty_cache();  // returns the cached ones, keeps the one in use
  EXPECT_EQ(host.frees, 2);
  EXPECT_EQ(host.used(), 1024u);
  EXPECT_TRUE(cache.owns(c));
  EXPECT_EQ(cache.stats().cached_bytes, 0u);
  cache.free(c);
}

TEST(CudaHostBlockCache, OutOfMemoryEmptiesTheCacheRetriesThenFails) {
  FakeDevice host(8192);
  {
    HostBlockCache cache(host);
    void* a = cache.allocate(4096);
    void* b = cache.allocate(2048);
    cache.free(b);  // 2 KiB cached, 6 KiB taken from a source of 8 KiB
    void* c = cache.allocate(4096);  // fits only once the cached 2 KiB go back
    EXPECT_NE(c, nullptr);
    EXPECT_EQ(host.frees, 1);
    EXPECT_EQ(cache.stats().cached_bytes, 0u);
    EXPECT_ERROR(cache.allocate(1), "[pin_memory] out of memory: could not page-lock 1 bytes of "
                                    "host memory (8.00 KiB already pinned by ember)");
    EXPECT_ERROR(cache.free(static_cast<char*>(a) + 64), "not a pinned block in use");
    cache.free(a);
    cache.free(c);
  }
  EXPECT_EQ(host.used(), 0u);  // the cache's destructor returned what it held
}

// A block freed while a recorded use (an asynchronous copy's event) is not done waits apart: it
// is not handed out, even for its own size, until an allocate() finds the use done.
TEST(CudaHostBlockCache, AFreedBlockWaitsForItsRecordedUses) {
  FakeDevice host;
  HostBlockCache cache(host);
  bool copy_done = false, other_done = false;
  void* a = cache.allocate(4096);
  cache.record_use(a, std::make_unique<FakeWork>(copy_done));
  cache.record_use(a, std::make_unique<FakeWork>(other_done));
  cache.free(a);
  EXPECT_FALSE(cache.owns(a));
  EXPECT_EQ(cache.stats().pending_bytes, 4096u);
  EXPECT_EQ(cache.stats().cached_bytes, 0u);
  void* b = cache.allocate(4096);  // the copy still runs: a new block
  EXPECT_NE(b, a);
  copy_done = true;
  void* c = cache.allocate(4096);  // one use is done, the other not
  EXPECT_NE(c, a);
  other_done = true;
  cache.empty_cache();  // both done now: a is cached, then returned with the other cached ones
  EXPECT_EQ(cache.stats().pending_bytes, 0u);
  EXPECT_EQ(host.frees, 1);
  void* d = cache.allocate(4096);
  cache.record_use(d, std::make_unique<FakeWork>(other_done));  // done already
  cache.free(d);
  EXPECT_EQ(cache.stats().cached_bytes, 4096u);  // cached at once
  EXPECT_EQ(cache.allocate(4096), d);
  EXPECT_ERROR(cache.record_use(a, std::make_unique<FakeWork>(copy_done)),
               "not a pinned block in use");
  for (void* p : {b, c, d}) cache.free(p);
}

}  // namespace
}  // namespace ember::cuda
