// Note [Caching device allocator]
// cudaMalloc and cudaFree synchronise the device and cost tens of microseconds, so, as PyTorch,
// ember never returns freed device memory to the driver on its own: it keeps it in pools and
// carves later requests out of it. The rules are PyTorch's (c10/cuda/CUDACachingAllocator.cpp),
// so memory_allocated/memory_reserved and memory_summary() read as a PyTorch user expects:
// - requests are rounded to 512 B; those up to 1 MiB are "small" and live in 2 MiB segments,
//   larger ones in segments of 20 MiB (requests of 1-10 MiB) or their size rounded to 2 MiB;
// - a request takes the smallest cached block of its pool and stream that fits (best fit,
//   then lowest address); a block bigger than needed is split when the rest is worth keeping
//   (>= 512 B in the small pool, > 1 MiB in the large one), and a freed block merges with its
//   free neighbours in the same segment;
// - blocks belong to the stream they were allocated on and are reused only there, so work
//   queued on that stream is ordered before the reuse without any event;
// - when the driver is out of memory, every wholly free segment is released and the request
//   retried once; then the error says how much is allocated and how much is cached.
// - a block used on other streams too (Tensor::record_stream) is not reusable at its free:
//   an event is recorded on each of those streams then, and the block stays active (unmerged,
//   out of the pools) until an allocate() finds every event done; empty_cache() and the
//   out-of-memory retry wait for them (PyTorch's synchronize_and_free_events).
// Not here yet: max_split_size, expandable segments.
#include "backend/cuda/caching_allocator.h"

#include <algorithm>
#include <bit>
#include <iomanip>
#include <sstream>

#include "ember/error.h"

namespace ember::cuda {

struct CachingAllocator::Block {
  StreamId stream;
  size_t size;
  Pool* pool;
  char* ptr;
  size_t requested = 0;
  bool allocated = false;
  Block* prev = nullptr;  // neighbours in the segment, when it is split
  Block* next = nullptr;
  std::set<StreamId> stream_uses = {};  // other streams that used it (record_stream)
  bool is_split() const { return prev || next; }
};

// Free blocks ordered by (stream, size, address): lower_bound finds the best fit on a stream.
bool CachingAllocator::BySize::operator()(const Block* a, const Block* b) const {
  if (a->stream != b->stream) return a->stream < b->stream;
  if (a->size != b->size) return a->size < b->size;
  return a->ptr < b->ptr;
}

struct CachingAllocator::Pool {
  explicit Pool(bool small) : small(small) {}
  std::set<Block*, BySize> blocks;
  const bool small;
};

namespace {

void increase(Stat& s, size_t amount) {
  s.current += int64_t(amount);
  s.peak = std::max(s.peak, s.current);
  s.allocated += int64_t(amount);
}
void decrease(Stat& s, size_t amount) {
  s.current -= int64_t(amount);
  s.freed += int64_t(amount);
}

}  // namespace

size_t round_size(size_t nbytes) {
  if (nbytes < kMinBlockSize) return kMinBlockSize;
  return kMinBlockSize * ((nbytes + kMinBlockSize - 1) / kMinBlockSize);
}

size_t segment_size_for(size_t size) {
  if (size <= kSmallSize) return kSmallBuffer;
  if (size < kMinLargeAlloc) return kLargeBuffer;
  return kRoundLarge * ((size + kRoundLarge - 1) / kRoundLarge);
}

std::string format_size(uint64_t bytes) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(2);
  if (bytes <= 1024) {
    os << bytes << " bytes";
  } else if (bytes <= (uint64_t(1) << 20)) {
    os << double(bytes) / 1024.0 << " KiB";
  } else if (bytes <= (uint64_t(1) << 30)) {
    os << double(bytes) / 1048576.0 << " MiB";
  } else {
    os << double(bytes) / 1073741824.0 << " GiB";
  }
  return os.str();
}

CachingAllocator::CachingAllocator(int device, SegmentSource& source, StreamEvents* events)
    : device_(device),
      source_(source),
      events_(events),
      small_(std::make_unique<Pool>(true)),
      large_(std::make_unique<Pool>(false)) {}

CachingAllocator::~CachingAllocator() {
  synchronize_and_free_events();
  release_cached_segments();
  // Blocks of segments still in use stay with their segment (the memory is not ours to free
  // while someone holds a block); only the bookkeeping goes.
  for (Pool* pool : {small_.get(), large_.get()})
    for (Block* b : pool->blocks) delete b;
  for (auto& [ptr, b] : active_) delete b;
}

template <class F>
void CachingAllocator::for_pool_stats(const Pool& pool, F&& f) {
  f(kAllPools);
  f(pool.small ? kSmallPool : kLargePool);
}

CachingAllocator::Pool& CachingAllocator::pool_for(size_t size) {
  return size <= kSmallSize ? *small_ : *large_;
}

void* CachingAllocator::allocate(size_t nbytes, StreamId stream) {
  if (nbytes == 0) return nullptr;  // as the CPU allocator: no block for an empty storage
  std::lock_guard lock(mutex_);
  process_events();
  const size_t size = round_size(nbytes);
  Pool& pool = pool_for(size);
  Block* block = take_free_block(pool, stream, size);
  if (!block) {
    const size_t segment = segment_size_for(size);
    block = new_segment(pool, stream, segment, /*retry=*/false);
    if (!block) {
      release_cached_segments();
      block = new_segment(pool, stream, segment, /*retry=*/true);
    }
    if (!block) out_of_memory(segment);
  }
  return hand_out(block, size, nbytes)->ptr;
}

CachingAllocator::Block* CachingAllocator::take_free_block(Pool& pool, StreamId stream,
                                                           size_t size) {
  Block key{.stream = stream, .size = size, .pool = &pool, .ptr = nullptr};
  const auto it = pool.blocks.lower_bound(&key);
  if (it == pool.blocks.end() || (*it)->stream != stream) return nullptr;
  Block* block = *it;
  pool.blocks.erase(it);
  return block;
}

CachingAllocator::Block* CachingAllocator::new_segment(Pool& pool, StreamId stream,
                                                       size_t segment_size, bool retry) {
  if (retry) ++stats_.num_alloc_retries;
  void* ptr = source_.allocate(segment_size);
  if (!ptr) return nullptr;
  ++stats_.num_device_alloc;
  for_pool_stats(pool, [&](size_t p) {
    increase(stats_.segment[p], 1);
    increase(stats_.reserved_bytes[p], segment_size);
  });
  return new Block{
      .stream = stream, .size = segment_size, .pool = &pool, .ptr = static_cast<char*>(ptr)};
}

// PyTorch's should_split: keep the rest as its own block only when it is worth caching.
CachingAllocator::Block* CachingAllocator::hand_out(Block* block, size_t size, size_t requested) {
  Pool& pool = *block->pool;
  const size_t rest = block->size - size;
  const bool split = pool.small ? rest >= kMinBlockSize : rest > kSmallSize;
  const bool already_split = block->is_split();
  if (split) {
    // [block ...] becomes [front (handed out) | block (the rest, cached)]
    Block* front = new Block{.stream = block->stream, .size = size, .pool = &pool, .ptr = block->ptr};
    front->prev = block->prev;
    if (front->prev) front->prev->next = front;
    front->next = block;
    block->prev = front;
    block->ptr += size;
    block->size = rest;
    pool.blocks.insert(block);
    for_pool_stats(pool, [&](size_t p) {
      if (already_split) {  // a cached piece shrinks by `size`
        decrease(stats_.inactive_split_bytes[p], size);
      } else {  // a new cached piece of a segment in use
        increase(stats_.inactive_split_bytes[p], rest);
        increase(stats_.inactive_split[p], 1);
      }
    });
    block = front;
  } else if (already_split) {  // a cached piece becomes active whole
    for_pool_stats(pool, [&](size_t p) {
      decrease(stats_.inactive_split_bytes[p], block->size);
      decrease(stats_.inactive_split[p], 1);
    });
  }
  block->allocated = true;
  block->requested = requested;
  active_.emplace(block->ptr, block);
  for_pool_stats(pool, [&](size_t p) {
    increase(stats_.allocation[p], 1);
    increase(stats_.allocated_bytes[p], block->size);
    increase(stats_.active[p], 1);
    increase(stats_.active_bytes[p], block->size);
    increase(stats_.requested_bytes[p], requested);
  });
  return block;
}

void CachingAllocator::free(void* ptr) {
  if (!ptr) return;
  std::lock_guard lock(mutex_);
  const auto it = active_.find(ptr);
  EMBER_CHECK(it != active_.end(), "cuda.free", "the caching allocator of cuda:", device_,
              " did not allocate ", ptr);
  Block* block = it->second;
  active_.erase(it);
  for_pool_stats(*block->pool, [&](size_t p) {
    decrease(stats_.allocation[p], 1);
    decrease(stats_.allocated_bytes[p], block->size);
  });
  if (!block->stream_uses.empty()) {
    // Still `allocated` for its neighbours (no merge) and active in the statistics, as PyTorch.
    PendingFree pending{block, {}};
    for (StreamId stream : block->stream_uses) pending.events.push_back(events_->record(stream));
    block->stream_uses.clear();
    pending_frees_.push_back(std::move(pending));
    return;
  }
  block->allocated = false;
  free_block(block);
}

void CachingAllocator::record_stream(const void* ptr, StreamId stream) {
  if (!ptr) return;  // an empty storage has no block
  std::lock_guard lock(mutex_);
  const auto it = active_.find(const_cast<void*>(ptr));
  EMBER_CHECK(it != active_.end(), "record_stream", "the caching allocator of cuda:", device_,
              " did not allocate ", ptr, " (or it is freed)");
  EMBER_CHECK(events_, "record_stream", "the caching allocator of cuda:", device_,
              " was made without events, so it cannot wait for other streams");
  if (stream != it->second->stream) it->second->stream_uses.insert(stream);
}

// PyTorch's process_events: the freed blocks whose other streams are done go back to the pools.
void CachingAllocator::process_events() {
  std::erase_if(pending_frees_, [&](PendingFree& p) {
    std::erase_if(p.events, [](const auto& event) { return event->done(); });
    if (!p.events.empty()) return false;
    p.block->allocated = false;
    free_block(p.block);
    return true;
  });
}

// Before memory goes back to the driver, every pending free is waited for and completed.
void CachingAllocator::synchronize_and_free_events() {
  for (PendingFree& p : pending_frees_) {
    for (const auto& event : p.events) event->wait();
    p.block->allocated = false;
    free_block(p.block);
  }
  pending_frees_.clear();
}

void CachingAllocator::free_block(Block* block) {
  Pool& pool = *block->pool;
  const size_t size = block->size, requested = block->requested;
  block->requested = 0;
  // Each free neighbour it absorbs was a cached piece of a split segment.
  int64_t split_blocks = 0, split_bytes = 0;
  for (Block* neighbour : {block->prev, block->next}) {
    if (const size_t absorbed = merge(block, neighbour)) {
      split_blocks -= 1;
      split_bytes -= int64_t(absorbed);
    }
  }
  pool.blocks.insert(block);
  if (block->is_split()) {
    split_blocks += 1;
    split_bytes += int64_t(block->size);
  }
  for_pool_stats(pool, [&](size_t p) {
    if (split_blocks > 0) increase(stats_.inactive_split[p], size_t(split_blocks));
    if (split_blocks < 0) decrease(stats_.inactive_split[p], size_t(-split_blocks));
    if (split_bytes > 0) increase(stats_.inactive_split_bytes[p], size_t(split_bytes));
    if (split_bytes < 0) decrease(stats_.inactive_split_bytes[p], size_t(-split_bytes));
    decrease(stats_.active[p], 1);
    decrease(stats_.active_bytes[p], size);
    decrease(stats_.requested_bytes[p], requested);
  });
}

// Absorbs the free neighbour `src` into `dst`; returns its size (0 when it is in use or absent).
size_t CachingAllocator::merge(Block* dst, Block* src) {
  if (!src || src->allocated) return 0;
  if (dst->prev == src) {  // [src dst]
    dst->ptr = src->ptr;
    dst->prev = src->prev;
    if (dst->prev) dst->prev->next = dst;
  } else {  // [dst src]
    dst->next = src->next;
    if (dst->next) dst->next->prev = dst;
  }
  const size_t absorbed = src->size;
  dst->size += absorbed;
  dst->pool->blocks.erase(src);
  delete src;
  return absorbed;
}

void CachingAllocator::empty_cache() {
  std::lock_guard lock(mutex_);
  release_cached_segments();
}

bool CachingAllocator::owns(const void* ptr) const {
  std::lock_guard lock(mutex_);
  return active_.count(const_cast<void*>(ptr)) != 0;
}

// Only wholly free segments can go back: a segment is one cudaMalloc, freed as a whole.
void CachingAllocator::release_cached_segments() {
  ++stats_.num_sync_all_streams;
  synchronize_and_free_events();
  for (Pool* pool : {small_.get(), large_.get()}) {
    for (auto it = pool->blocks.begin(); it != pool->blocks.end();) {
      Block* block = *it++;
      if (!block->is_split()) release_segment(block);
    }
  }
}

void CachingAllocator::release_segment(Block* block) {
  Pool& pool = *block->pool;
  source_.free(block->ptr, block->size);
  ++stats_.num_device_free;
  for_pool_stats(pool, [&](size_t p) {
    decrease(stats_.segment[p], 1);
    decrease(stats_.reserved_bytes[p], block->size);
  });
  pool.blocks.erase(block);
  delete block;
}

// PyTorch's message, with ember in PyTorch's place; the segment size is what was asked for.
void CachingAllocator::out_of_memory(size_t segment_size) {
  ++stats_.num_ooms;
  const auto [free_bytes, total_bytes] = source_.mem_info();
  const int64_t allocated = stats_.allocated_bytes[kAllPools].current;
  const int64_t reserved = stats_.reserved_bytes[kAllPools].current;
  fail("cuda", "out of memory. Tried to allocate ", format_size(segment_size), ". GPU ", device_,
       " has a total capacity of ", format_size(total_bytes), " of which ",
       format_size(free_bytes), " is free. Of the allocated memory ",
       format_size(uint64_t(allocated)), " is allocated by ember, and ",
       format_size(uint64_t(reserved - allocated)),
       " is reserved by ember but unallocated. If reserved but unallocated memory is large, "
       "free tensors or call ember::cuda::empty_cache() before allocating again.");
}

DeviceStats CachingAllocator::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void CachingAllocator::reset_peak_stats() {
  std::lock_guard lock(mutex_);
  for (StatArray* a : {&stats_.allocation, &stats_.segment, &stats_.active, &stats_.inactive_split,
                       &stats_.allocated_bytes, &stats_.reserved_bytes, &stats_.active_bytes,
                       &stats_.inactive_split_bytes, &stats_.requested_bytes})
    for (Stat& s : *a) s.peak = s.current;
  stats_.oversize_allocations.peak = stats_.oversize_allocations.current;
  stats_.oversize_segments.peak = stats_.oversize_segments.current;
}

void CachingAllocator::reset_accumulated_stats() {
  std::lock_guard lock(mutex_);
  for (StatArray* a : {&stats_.allocation, &stats_.segment, &stats_.active, &stats_.inactive_split,
                       &stats_.allocated_bytes, &stats_.reserved_bytes, &stats_.active_bytes,
                       &stats_.inactive_split_bytes, &stats_.requested_bytes})
    for (Stat& s : *a) s.allocated = s.freed = 0;
  for (Stat* s : {&stats_.oversize_allocations, &stats_.oversize_segments})
    s->allocated = s->freed = 0;
  stats_.num_alloc_retries = stats_.num_ooms = stats_.num_sync_all_streams = 0;
  stats_.num_device_alloc = stats_.num_device_free = 0;
}

std::vector<SegmentSnapshot> CachingAllocator::snapshot() const {
  std::lock_guard lock(mutex_);
  std::vector<const Block*> heads;  // each segment's first block
  for (const Pool* pool : {small_.get(), large_.get()})
    for (const Block* b : pool->blocks)
      if (!b->prev) heads.push_back(b);
  for (const auto& [ptr, b] : active_)
    if (!b->prev) heads.push_back(b);
  for (const PendingFree& p : pending_frees_)  // shown allocated until their streams are done
    if (!p.block->prev) heads.push_back(p.block);
  std::sort(heads.begin(), heads.end(), [](const Block* a, const Block* b) { return a->ptr < b->ptr; });
  std::vector<SegmentSnapshot> segments;
  for (const Block* head : heads) {
    SegmentSnapshot s{.address = reinterpret_cast<uintptr_t>(head->ptr), .total_size = 0,
                      .stream = head->stream, .small_pool = head->pool->small, .blocks = {}};
    for (const Block* b = head; b; b = b->next) {
      s.total_size += b->size;
      s.blocks.push_back({b->size, b->requested, b->allocated});
    }
    segments.push_back(std::move(s));
  }
  return segments;
}

// Note [Pinned host cache]
// cudaHostAlloc/cudaFreeHost page-lock and unlock memory through the driver (and cudaFreeHost
// synchronises the device), far too slow for a DataLoader that pins every batch, so, like
// PyTorch's CachingHostAllocator, freed pinned blocks are kept and handed out again. Requests are
// rounded up to a power of two so that the batches of a loader, which vary a little in size
// (the last one), reuse the same blocks; a request takes a cached block of exactly its rounded
// size or gets a new one. The memory goes back to the driver only on empty_cache() or when the
// cache goes. Blocks are never split, so a storage's data pointer is its block's address and
// owns() answers Tensor::is_pinned for the storage and every view of it.
// A non_blocking copy from or to a pinned block is still running when the host moves on, and
// the tensor may be gone before it ends (`x.pin_memory().to(kCUDA, true)` frees its pinned
// temporary at once): as PyTorch, the copy records an event (a PendingUse) on the block, and a
// freed block with uses not done waits apart until an allocate() finds them done.
HostBlockCache::HostBlockCache(SegmentSource& source) : source_(source) {}

// Blocks whose uses are still queued are left to the driver's teardown, as those in use.
HostBlockCache::~HostBlockCache() {
  std::lock_guard lock(mutex_);
  collect_done_locked();
  release_cached_locked();
}

size_t HostBlockCache::block_size(size_t nbytes) { return std::bit_ceil(std::max<size_t>(nbytes, 1)); }

void* HostBlockCache::allocate(size_t nbytes) {
  const size_t size = block_size(nbytes);
  std::lock_guard lock(mutex_);
  collect_done_locked();
  void* ptr = nullptr;
  if (auto it = cached_.find(size); it != cached_.end()) {
    ptr = it->second.back();
    it->second.pop_back();
    if (it->second.empty()) cached_.erase(it);
    stats_.cached_bytes -= size;
    ++stats_.cache_hits;
  } else {
    ptr = source_.allocate(size);
    if (!ptr) {
      release_cached_locked();
      ptr = source_.allocate(size);
    }
    EMBER_CHECK(ptr, "pin_memory", "out of memory: could not page-lock ", format_size(size),
                " of host memory (", format_size(stats_.allocated_bytes),
                " already pinned by ember)");
    ++stats_.source_allocations;
  }
  live_.emplace(ptr, LiveBlock{size, {}});
  stats_.allocated_bytes += size;
  return ptr;
}

void HostBlockCache::record_use(const void* ptr, std::unique_ptr<PendingWork> use) {
  std::lock_guard lock(mutex_);
  const auto it = live_.find(ptr);
  EMBER_CHECK(it != live_.end(), "pin_memory", "recording a use of ", ptr,
              ", which is not a pinned block in use");
  it->second.uses.push_back(std::move(use));
}

void HostBlockCache::free(void* ptr) {
  std::lock_guard lock(mutex_);
  const auto it = live_.find(ptr);
  EMBER_CHECK(it != live_.end(), "pin_memory", "freeing ", ptr,
              ", which is not a pinned block in use");
  LiveBlock block = std::move(it->second);
  live_.erase(it);
  stats_.allocated_bytes -= block.size;
  std::erase_if(block.uses, [](const auto& use) { return use->done(); });
  if (block.uses.empty()) {
    stats_.cached_bytes += block.size;
    cached_[block.size].push_back(ptr);
  } else {
    stats_.pending_bytes += block.size;
    pending_.push_back({ptr, block.size, std::move(block.uses)});
  }
}

void HostBlockCache::collect_done_locked() {
  std::erase_if(pending_, [&](FreedBlock& b) {
    std::erase_if(b.uses, [](const auto& use) { return use->done(); });
    if (!b.uses.empty()) return false;
    stats_.pending_bytes -= b.size;
    stats_.cached_bytes += b.size;
    cached_[b.size].push_back(b.ptr);
    return true;
  });
}

bool HostBlockCache::owns(const void* ptr) const {
  std::lock_guard lock(mutex_);
  return live_.count(ptr) != 0;
}

void HostBlockCache::empty_cache() {
  std::lock_guard lock(mutex_);
  collect_done_locked();
  release_cached_locked();
}

HostBlockCache::Stats HostBlockCache::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void HostBlockCache::release_cached_locked() {
  for (auto& [size, blocks] : cached_)
    for (void* p : blocks) source_.free(p, size);
  cached_.clear();
  stats_.cached_bytes = 0;
}

}  // namespace ember::cuda
