// The caching CPU allocator: 64-byte aligned blocks of every size, kept in size buckets after
// free so that small ops never reach malloc and big ones never page-fault in steady state
// (see Note [Caching CPU allocator] in src/core/allocator.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ember {

struct CpuAllocatorStats {
  size_t allocated_bytes;  // held by live storages
  size_t cached_bytes;     // freed, kept for reuse
  size_t peak_allocated_bytes;
  uint64_t system_allocations;  // blocks obtained from the OS (cache misses)
  uint64_t cache_hits;
};

namespace cpu {
/// Returns all cached (free) blocks to the system.
void empty_cache();
/// Caps the bytes kept in the cache (default: a quarter of physical memory, at most 8 GiB).
void set_cache_limit(size_t bytes);
CpuAllocatorStats allocator_stats();
/// Restarts peak_allocated_bytes from the bytes allocated now (torch.cuda.reset_peak_memory_stats),
/// so a region's peak can be measured.
void reset_peak_allocated_bytes();
}  // namespace cpu

}  // namespace ember
