// The caching device allocator: PyTorch's CUDACachingAllocator rules (Note [Caching device
// allocator] in caching_allocator.cpp) over any source of raw device segments, so its
// bookkeeping runs, and is tested, without a GPU. The CUDA build gives each device one of these
// over cudaMalloc/cudaFree (src/backend/cuda/memory.cpp); tests give it host memory.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ember::cuda {

// PyTorch's sizes (c10/cuda/CUDACachingAllocator.cpp).
inline constexpr size_t kMinBlockSize = 512;              // every size is rounded to 512 B
inline constexpr size_t kSmallSize = size_t(1) << 20;     // requests up to 1 MiB are "small"
inline constexpr size_t kSmallBuffer = size_t(2) << 20;   // small blocks come from 2 MiB segments
inline constexpr size_t kLargeBuffer = size_t(20) << 20;  // 1-10 MiB requests: 20 MiB segments
inline constexpr size_t kMinLargeAlloc = size_t(10) << 20;
inline constexpr size_t kRoundLarge = size_t(2) << 20;    // bigger ones: rounded to 2 MiB

/// Where segments come from: the driver (cudaMalloc) or a test's host memory.
class SegmentSource {
 public:
  virtual ~SegmentSource() = default;
  /// A segment of `nbytes`, or nullptr when the device is out of memory (other failures throw).
  virtual void* allocate(size_t nbytes) = 0;
  virtual void free(void* ptr, size_t nbytes) = 0;
  /// {free, total} bytes of the device, as cudaMemGetInfo says (for the out-of-memory message).
  virtual std::pair<size_t, size_t> mem_info() = 0;
};

/// One statistic as PyTorch keeps it: `allocated`/`freed` are the historical increases/decreases.
struct Stat {
  int64_t current = 0, peak = 0, allocated = 0, freed = 0;
};
/// A statistic per pool, in PyTorch's StatType order: all, small_pool, large_pool.
enum StatPool : size_t { kAllPools, kSmallPool, kLargePool, kStatPools };
using StatArray = std::array<Stat, kStatPools>;

/// PyTorch's DeviceStats (the fields memory_stats() names).
struct DeviceStats {
  StatArray allocation;            // blocks handed out
  StatArray segment;               // segments from the driver
  StatArray active;                // blocks handed out, and freed ones waiting for other streams
  StatArray inactive_split;        // free blocks inside partly used segments (not releasable)
  StatArray allocated_bytes;       // bytes of the blocks handed out (rounded sizes)
  StatArray reserved_bytes;        // bytes of the segments
  StatArray active_bytes;
  StatArray inactive_split_bytes;
  StatArray requested_bytes;       // bytes asked for (before rounding)
  int64_t num_alloc_retries = 0;   // driver allocations retried after emptying the cache
  int64_t num_ooms = 0;
  int64_t num_sync_all_streams = 0;
  int64_t num_device_alloc = 0;
  int64_t num_device_free = 0;
  Stat oversize_allocations, oversize_segments;  // blocks above max_split_size: none here
  int64_t max_split_size = -1;     // PyTorch's default (SIZE_MAX) as it reports it: no limit
};

/// A stream as the allocator sees it: the cudaStream_t's value (0: the default stream).
using StreamId = uintptr_t;

/// Work queued on a stream up to some point, as the allocators see it: a CUDA event recorded
/// there in the CUDA build (memory.cpp), a flag in the tests.
class PendingWork {
 public:
  virtual ~PendingWork() = default;
  /// Whether the work is done (cudaEventQuery).
  virtual bool done() = 0;
  /// Waits on the host until it is done (cudaEventSynchronize).
  virtual void wait() = 0;
};

/// Records PendingWork on a stream of the caching allocator's device (for record_stream).
class StreamEvents {
 public:
  virtual ~StreamEvents() = default;
  virtual std::unique_ptr<PendingWork> record(StreamId stream) = 0;
};

/// One segment and its blocks in address order (PyTorch's memory_snapshot, reduced).
struct SegmentSnapshot {
  struct Block {
    size_t size;
    size_t requested_size;  // 0 for a free block
    bool allocated;
  };
  uintptr_t address;
  size_t total_size;
  StreamId stream;
  bool small_pool;
  std::vector<Block> blocks;
};

/// The caching allocator of one device. Thread-safe.
class CachingAllocator {
 public:
  /// `device` is the index used in messages; `source` (and `events`, which record_stream needs)
  /// must outlive the allocator.
  CachingAllocator(int device, SegmentSource& source, StreamEvents* events = nullptr);
  /// Returns the cached (wholly free) segments to the source; blocks still in use are left.
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  /// A block of at least `nbytes` for use on `stream` (nullptr for 0 bytes). When the source
  /// is out of memory, the cache is emptied and the allocation retried once; then it throws
  /// ember::Error "[cuda] out of memory. Tried to allocate ...".
  void* allocate(size_t nbytes, StreamId stream);
  /// Returns a block from allocate() to its stream's pool, merged with free neighbours. A block
  /// used on other streams (record_stream) gets an event on each of them now and goes back only
  /// when an allocate() or empty_cache() finds them all done; until then it stays active.
  void free(void* ptr);
  /// Tensor::record_stream: the block `ptr` (handed out) is used by work on `stream` too, so its
  /// free must wait for that stream (PyTorch's recordStream). Its own stream is not recorded.
  void record_stream(const void* ptr, StreamId stream);
  /// Returns every wholly free segment to the source (torch.cuda.empty_cache).
  void empty_cache();
  /// Whether `ptr` is a block this allocator handed out and that is not freed yet.
  bool owns(const void* ptr) const;

  DeviceStats stats() const;
  void reset_peak_stats();
  void reset_accumulated_stats();
  std::vector<SegmentSnapshot> snapshot() const;

 private:
  struct Block;
  struct Pool;
  struct BySize {
    bool operator()(const Block* a, const Block* b) const;
  };

  Pool& pool_for(size_t size);
  Block* take_free_block(Pool& pool, StreamId stream, size_t size);
  Block* new_segment(Pool& pool, StreamId stream, size_t segment_size, bool retry);
  Block* hand_out(Block* block, size_t size, size_t requested);
  void free_block(Block* block);
  size_t merge(Block* dst, Block* src);
  void process_events();
  void synchronize_and_free_events();
  void release_cached_segments();
  void release_segment(Block* block);
  [[noreturn]] void out_of_memory(size_t segment_size);
  template <class F>
  void for_pool_stats(const Pool& pool, F&& f);

  struct PendingFree {
    Block* block;
    std::vector<std::unique_ptr<PendingWork>> events;  // one per other stream that used it
  };

  const int device_;
  SegmentSource& source_;
  StreamEvents* events_;
  mutable std::mutex mutex_;
  std::vector<PendingFree> pending_frees_;  // freed blocks waiting for other streams
  DeviceStats stats_;
  std::unique_ptr<Pool> small_, large_;
  std::unordered_map<void*, Block*> active_;  // blocks handed out, by address
};

/// The pinned (page-locked) host memory behind Tensor::pin_memory (Note [Pinned host cache] in
/// caching_allocator.cpp): cudaHostAlloc'ed blocks in the CUDA build (host_memory.cpp), host
/// memory in the tests. Thread-safe.
class HostBlockCache {
 public:
  struct Stats {
    size_t allocated_bytes = 0;  // blocks handed out (rounded sizes)
    size_t cached_bytes = 0;     // freed blocks kept for reuse
    size_t pending_bytes = 0;    // freed blocks whose recorded uses are not done yet
    uint64_t source_allocations = 0;
    uint64_t cache_hits = 0;
  };
  /// `source` must outlive the cache; its mem_info() is not used.
  explicit HostBlockCache(SegmentSource& source);
  /// Returns the cached blocks to the source; blocks still in use are left.
  ~HostBlockCache();
  HostBlockCache(const HostBlockCache&) = delete;
  HostBlockCache& operator=(const HostBlockCache&) = delete;

  /// A block of at least max(nbytes, 1) bytes (so even an empty tensor's storage is pinned).
  /// When the source has no memory, the cache is emptied and the request retried once; then it
  /// throws ember::Error "[pin_memory] out of memory ...".
  void* allocate(size_t nbytes);
  /// Keeps the block `ptr` (in use) from reuse after its free until `use` is done: the
  /// asynchronous copies from and to pinned memory record one each (PyTorch's
  /// CachingHostAllocator_recordEvent).
  void record_use(const void* ptr, std::unique_ptr<PendingWork> use);
  /// Returns a block from allocate() to the cache; while a recorded use is not done it waits
  /// apart, and is cached by the first allocate() or empty_cache() that finds its uses done.
  void free(void* ptr);
  /// Whether `ptr` starts a block handed out and not freed yet.
  bool owns(const void* ptr) const;
  /// Returns every cached block to the source.
  void empty_cache();
  Stats stats() const;

  /// The size a request is served with: the next power of two, at least 1.
  static size_t block_size(size_t nbytes);

 private:
  struct LiveBlock {
    size_t size;
    std::vector<std::unique_ptr<PendingWork>> uses;
  };
  struct FreedBlock {
    void* ptr;
    size_t size;
    std::vector<std::unique_ptr<PendingWork>> uses;
  };
  void collect_done_locked();
  void release_cached_locked();

  SegmentSource& source_;
  mutable std::mutex mutex_;
  Stats stats_;
  std::unordered_map<const void*, LiveBlock> live_;  // handed out, by address
  std::map<size_t, std::vector<void*>> cached_;      // freed and idle, by block size
  std::vector<FreedBlock> pending_;                  // freed, uses still queued
};

/// Rounds a request as PyTorch does: to a multiple of 512 bytes, at least 512.
size_t round_size(size_t nbytes);
/// The segment a request of `size` (rounded) asks the driver for when no cached block fits.
size_t segment_size_for(size_t size);
/// PyTorch's format_size: "512 bytes", "1.50 KiB", "20.00 MiB", "2.00 GiB".
std::string format_size(uint64_t bytes);

/// The flat `memory_stats()` dictionary with PyTorch's keys ("allocated_bytes.all.current", ...).
std::map<std::string, int64_t> memory_stats_dict(const DeviceStats& stats);
/// torch.cuda.memory_summary's table for `stats`.
std::string memory_summary_table(const DeviceStats& stats, int device, bool abbreviated);

}  // namespace ember::cuda
