// Note [Caching CPU allocator]
// Every block is rounded up to a size class (64-byte granularity below 1 KiB, then four classes
// per power of two, so at most 25% is wasted) and, when freed, kept on that class's free list
// instead of going back to the system. Two costs motivate this (see shared BENCHMARKING.md):
// malloc/free per small op, and the ~12-15 µs first touch of each fresh 4 KiB page on these VMs,
// which makes an uncached 64 MiB output 50x slower than a reused one. Blocks of 2 MiB or more
// come from mmap, 2 MiB aligned and advised for transparent huge pages, so even their first use
// faults once per 2 MiB rather than once per 4 KiB. The cache is capped (a quarter of physical
// memory, at most 8 GiB, by default); a block that would overflow the cap goes back to the
// system, and empty_cache() releases everything cached.
// EMBER_CPU_ALLOCATION_LIMIT_MB, when set, is the largest single CPU allocation in MiB: a larger
// one is refused with the out-of-memory error before the system is asked. For a process that runs
// requests it does not trust and must bound its memory — the Python argument fuzzer
// (tests/fuzz/python_args_fuzzer.cpp), where `ember.eye(29889)` is a valid call of 3.3 GiB.
#include "allocator.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

#include "ember/allocator.h"
#include "ember/error.h"

namespace ember {
namespace {

constexpr size_t kAlignment = 64;
std::atomic<MemoryObserver> g_memory_observer{nullptr};
const DeviceMemory* g_device_memory = nullptr;  // set once, before main

constexpr size_t kHugeThreshold = size_t(2) << 20;
constexpr size_t kHugePage = size_t(2) << 20;

// Size class index and rounded size for a request.
struct SizeClass {
  size_t index;
  size_t bytes;
};

SizeClass size_class(size_t nbytes) {
  if (nbytes <= 1024) {
    const size_t units = (nbytes + 63) / 64;  // 1..16
    return {units - 1, units * 64};
  }
  // Four classes per power of two above 1 KiB: 1.25, 1.5, 1.75, 2 x 2^k.
  const int k = 63 - __builtin_clzll(nbytes - 1);  // 2^k < nbytes <= 2^(k+1)
  const size_t base = size_t(1) << k;
  const size_t quarter = base / 4;
  const size_t steps = (nbytes - base + quarter - 1) / quarter;  // 1..4
  return {16 + size_t(k - 10) * 4 + (steps - 1), base + steps * quarter};
}

void* system_allocate(size_t bytes) {
  if (bytes >= kHugeThreshold) {
    // Over-map by one huge page and trim, so the block starts on a 2 MiB boundary.
    const size_t span = bytes + kHugePage;
    void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return nullptr;
    const auto start = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
    if (aligned > start) munmap(raw, aligned - start);
    const uintptr_t end = start + span, used_end = aligned + bytes;
    if (end > used_end) munmap(reinterpret_cast<void*>(used_end), end - used_end);
    void* p = reinterpret_cast<void*>(aligned);
    madvise(p, bytes, MADV_HUGEPAGE);
    return p;
  }
  return std::aligned_alloc(kAlignment, bytes);
}

void system_free(void* p, size_t bytes) {
  if (bytes >= kHugeThreshold) {
    munmap(p, bytes);
  } else {
    std::free(p);
  }
}

size_t default_cache_limit() {
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
  const size_t physical = pages > 0 && page_size > 0 ? size_t(pages) * size_t(page_size) : 0;
  return std::min(physical / 4, size_t(8) << 30);
}

// EMBER_CPU_ALLOCATION_LIMIT_MB in bytes (Note [Caching CPU allocator]); SIZE_MAX when unset.
size_t allocation_limit() {
  static const size_t limit = [] {
    const char* text = std::getenv("EMBER_CPU_ALLOCATION_LIMIT_MB");
    if (!text || !*text) return SIZE_MAX;
    char* end = nullptr;
    const unsigned long long mib = std::strtoull(text, &end, 10);
    EMBER_CHECK(*end == '\0' && mib > 0 && mib < (1ull << 40), "allocate",
                "EMBER_CPU_ALLOCATION_LIMIT_MB='", text, "' is not a positive number of MiB");
    return size_t(mib) << 20;
  }();
  return limit;
}

class CachingCpuAllocator {
 public:
  void* allocate(size_t nbytes) {
    EMBER_CHECK(nbytes <= allocation_limit(), "allocate", "out of memory: could not allocate ",
                nbytes, " bytes on the CPU (more than EMBER_CPU_ALLOCATION_LIMIT_MB allows, ",
                allocation_limit() >> 20, " MiB)");
    const SizeClass c = size_class(nbytes);
    Totals totals;
    {
      std::lock_guard lock(mutex_);
      stats_.allocated_bytes += c.bytes;
      stats_.peak_allocated_bytes = std::max(stats_.peak_allocated_bytes, stats_.allocated_bytes);
      if (c.index < free_.size() && !free_[c.index].empty()) {
        void* p = free_[c.index].back();
        free_[c.index].pop_back();
        stats_.cached_bytes -= c.bytes;
        ++stats_.cache_hits;
        totals = snapshot_locked();
        report(p, int64_t(c.bytes), totals);
        return p;
      }
      ++stats_.system_allocations;
      totals = snapshot_locked();
    }
    void* p = system_allocate(c.bytes);
    if (!p) {
      empty_cache();  // retry once with everything cached returned to the system
      p = system_allocate(c.bytes);
    }
    if (!p) {
      std::lock_guard lock(mutex_);
      stats_.allocated_bytes -= c.bytes;
      fail("allocate", "out of memory: could not allocate ", nbytes, " bytes on the CPU");
    }
    report(p, int64_t(c.bytes), totals);
    return p;
  }

  void free(void* p, size_t nbytes) {
    const SizeClass c = size_class(nbytes);
    Totals totals;
    {
      std::lock_guard lock(mutex_);
      stats_.allocated_bytes -= c.bytes;
      const bool keep = stats_.cached_bytes + c.bytes <= limit_;
      if (keep) {
        if (free_.size() <= c.index) free_.resize(c.index + 1);
        free_[c.index].push_back(p);
        stats_.cached_bytes += c.bytes;
      }
      totals = snapshot_locked();
      if (keep) {
        report(p, -int64_t(c.bytes), totals);
        return;
      }
    }
    system_free(p, c.bytes);
    report(p, -int64_t(c.bytes), totals);
  }

  void empty_cache() {
    std::vector<std::vector<void*>> blocks;
    {
      std::lock_guard lock(mutex_);
      blocks.swap(free_);
      stats_.cached_bytes = 0;
    }
    for (size_t i = 0; i < blocks.size(); ++i) {
      const size_t bytes = class_bytes(i);
      for (void* p : blocks[i]) system_free(p, bytes);
    }
  }

  void set_limit(size_t bytes) {
    {
      std::lock_guard lock(mutex_);
      limit_ = bytes;
      if (stats_.cached_bytes <= limit_) return;
    }
    empty_cache();
  }

  CpuAllocatorStats stats() {
    std::lock_guard lock(mutex_);
    return stats_;
  }

  void reset_peak() {
    std::lock_guard lock(mutex_);
    stats_.peak_allocated_bytes = stats_.allocated_bytes;
  }

 private:
  static size_t class_bytes(size_t index) {
    if (index < 16) return (index + 1) * 64;
    const size_t k = (index - 16) / 4 + 10, steps = (index - 16) % 4 + 1;
    const size_t base = size_t(1) << k;
    return base + steps * (base / 4);
  }

  // The running totals a profile_memory event carries (taken under the lock, so each event's
  // totals are the allocator's state right after it).
  struct Totals {
    int64_t allocated = 0, reserved = 0;
  };
  Totals snapshot_locked() const {
    return {int64_t(stats_.allocated_bytes), int64_t(stats_.allocated_bytes + stats_.cached_bytes)};
  }
  static void report(void* p, int64_t bytes, const Totals& t) {
    if (const MemoryObserver observer = g_memory_observer.load(std::memory_order_relaxed))
      observer(reinterpret_cast<uintptr_t>(p), bytes, t.allocated, t.reserved);
  }

  std::mutex mutex_;
  std::vector<std::vector<void*>> free_;
  size_t limit_ = default_cache_limit();
  CpuAllocatorStats stats_{};
};

CachingCpuAllocator& cpu_allocator() {
  // Leaked on purpose: storages freed during static destruction must still find it.
  static auto* allocator = new CachingCpuAllocator();
  return *allocator;
}

}  // namespace

void* device_allocate(Device device, size_t nbytes) {
  if (!device.is_cpu()) {
    EMBER_CHECK(g_device_memory, "empty", "no memory for ", device, " (no backend installed)");
    return g_device_memory->allocate(device, nbytes);
  }
  return nbytes == 0 ? nullptr : cpu_allocator().allocate(nbytes);
}

void device_free(Device device, void* data, size_t nbytes) {
  if (!device.is_cpu()) return g_device_memory->free(device, data, nbytes);
  if (data) cpu_allocator().free(data, nbytes);
}

void set_device_memory(const DeviceMemory* memory) { g_device_memory = memory; }

void set_memory_observer(MemoryObserver observer) {
  g_memory_observer.store(observer, std::memory_order_relaxed);
}

namespace cpu {
void empty_cache() { cpu_allocator().empty_cache(); }
void set_cache_limit(size_t bytes) { cpu_allocator().set_limit(bytes); }
CpuAllocatorStats allocator_stats() { return cpu_allocator().stats(); }
void reset_peak_allocated_bytes() { cpu_allocator().reset_peak(); }
}  // namespace cpu

}  // namespace ember
