// Pinned host memory in the CUDA build: the pinned host cache (Note [Pinned host cache] in
// caching_allocator.cpp) over cudaHostAlloc/cudaFreeHost, behind Tensor::pin_memory.
#include "backend/cuda/api.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

// The driver as the host cache's source of page-locked blocks. cudaHostAllocPortable makes a
// block pinned for every device, not only the one current when it was allocated (PyTorch's
// CachingHostAllocator pins the same way).
class PinnedHostBlocks final : public SegmentSource {
 public:
  void* allocate(size_t nbytes) override {
    void* ptr = nullptr;
    const cudaError_t status = cudaHostAlloc(&ptr, nbytes, cudaHostAllocPortable);
    if (status == cudaErrorMemoryAllocation) {  // the cache frees what it holds and retries
      (void)cudaGetLastError();
      return nullptr;
    }
    check(status, "pin_memory", " page-locking ", nbytes, " bytes of host memory");
    return ptr;
  }
  // At process exit the runtime may already be gone (cudaErrorCudartUnloading), which frees all.
  void free(void* ptr, size_t nbytes) override {
    const cudaError_t status = cudaFreeHost(ptr);
    if (status == cudaErrorCudartUnloading) return;
    check(status, "pin_memory", " unpinning ", nbytes, " bytes of host memory");
  }
  std::pair<size_t, size_t> mem_info() override { return {0, 0}; }  // not asked by the cache
};

// Leaked on purpose (with its source), as the device allocators: pinned storages freed during
// static destruction must still find their cache.
HostBlockCache& host_cache() {
  static auto* cache = new HostBlockCache(*new PinnedHostBlocks());
  return *cache;
}

}  // namespace

void record_pinned_use(const void* block, int index, cudaStream_t stream) {
  host_cache().record_use(block, record_event(index, stream, "to"));
}

void* allocate_pinned(size_t nbytes) { return host_cache().allocate(nbytes); }
void free_pinned(void* data) { host_cache().free(data); }
bool is_pinned(const void* data) { return data && host_cache().owns(data); }

}  // namespace ember::cuda
