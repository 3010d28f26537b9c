// Device memory in the CUDA build: one caching allocator per device (Note [Caching device
// allocator]) over cudaMalloc/cudaFree, and torch.cuda's memory functions over its statistics.
#include <memory>
#include <mutex>
#include <vector>

#include "backend/cuda/runtime.h"
#include "ember/cuda.h"

namespace ember::cuda {
namespace {

// A CUDA event recorded on a stream: the allocators' PendingWork.
class RecordedEvent final : public PendingWork {
 public:
  RecordedEvent(int index, cudaStream_t stream, const char* op) : index_(index), op_(op) {
    DeviceGuard guard(index, op);
    check(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming), op,
          " creating an event on cuda:", index);
    const cudaError_t status = cudaEventRecord(event_, stream);
    if (status != cudaSuccess) {
      (void)cudaEventDestroy(event_);
      check(status, op, " recording an event on cuda:", index);
    }
  }
  ~RecordedEvent() override { (void)cudaEventDestroy(event_); }
  RecordedEvent(const RecordedEvent&) = delete;
  RecordedEvent& operator=(const RecordedEvent&) = delete;

  bool done() override {
    const cudaError_t status = cudaEventQuery(event_);
    if (status == cudaErrorNotReady) {
      (void)cudaGetLastError();
      return false;
    }
    check(status, op_, " asking whether an event on cuda:", index_, " is done");
    return true;
  }
  void wait() override {
    check(cudaEventSynchronize(event_), op_, " waiting for an event on cuda:", index_);
  }

 private:
  int index_;
  const char* op_;
  cudaEvent_t event_ = nullptr;
};

// The driver as the caching allocator's source of segments, on one device, and its events.
class CudaSegments final : public SegmentSource, public StreamEvents {
 public:
  explicit CudaSegments(int device) : device_(device) {}

  void* allocate(size_t nbytes) override {
    DeviceGuard guard(device_, "cuda.allocate");
    void* ptr = nullptr;
    const cudaError_t status = cudaMalloc(&ptr, nbytes);
    if (status == cudaErrorMemoryAllocation) {  // the allocator frees its cache and retries
      (void)cudaGetLastError();
      return nullptr;
    }
    check(status, "cuda.allocate", " allocating ", nbytes, " bytes on cuda:", device_);
    return ptr;
  }

  // At process exit the runtime may already be gone (cudaErrorCudartUnloading), which frees all.
  void free(void* ptr, size_t nbytes) override {
    DeviceGuard guard(device_, "cuda.free");
    const cudaError_t status = cudaFree(ptr);
    if (status == cudaErrorCudartUnloading) return;
    check(status, "cuda.free", " freeing ", nbytes, " bytes on cuda:", device_);
  }

  std::pair<size_t, size_t> mem_info() override {
    DeviceGuard guard(device_, "cuda.mem_get_info");
    size_t free_bytes = 0, total_bytes = 0;
    check(cudaMemGetInfo(&free_bytes, &total_bytes), "cuda.mem_get_info", " on cuda:", device_);
    return {free_bytes, total_bytes};
  }

  std::unique_ptr<PendingWork> record(StreamId stream) override {
    return record_event(device_, reinterpret_cast<cudaStream_t>(stream), "record_stream");
  }

 private:
  int device_;
};

struct DeviceMemory {
  explicit DeviceMemory(int device) : segments(device), allocator(device, segments, &segments) {}
  CudaSegments segments;
  CachingAllocator allocator;
};

// Leaked on purpose, as the CPU allocator: storages freed during static destruction must still
// find their allocator. Sized once, for the devices the machine has.
std::vector<std::unique_ptr<DeviceMemory>>& devices() {
  static auto* all = [] {
    auto* v = new std::vector<std::unique_ptr<DeviceMemory>>();
    for (int i = 0, n = device_count(); i < n; ++i) v->push_back(std::make_unique<DeviceMemory>(i));
    return v;
  }();
  return *all;
}

CachingAllocator& allocator_of(Device device, const char* op) {
  return device_allocator(resolve_device(device, op));
}

}  // namespace

CachingAllocator& device_allocator(int index) { return devices().at(size_t(index))->allocator; }

std::unique_ptr<PendingWork> record_event(int index, cudaStream_t stream, const char* op) {
  return std::make_unique<RecordedEvent>(index, stream, op);
}

void record_stream(const void* block, Device device, const Stream& stream) {
  const int index = resolve_device(device, "record_stream");
  EMBER_CHECK(stream.device().index() == index, "record_stream", "the tensor is on cuda:", index,
              " but the stream on ", stream.device(), "; a stream of the tensor's device expected");
  device_allocator(index).record_stream(block, reinterpret_cast<StreamId>(stream.handle()));
}

int64_t memory_allocated(Device device) {
  return allocator_of(device, "cuda.memory_allocated").stats().allocated_bytes[kAllPools].current;
}
int64_t max_memory_allocated(Device device) {
  return allocator_of(device, "cuda.max_memory_allocated").stats().allocated_bytes[kAllPools].peak;
}
int64_t memory_reserved(Device device) {
  return allocator_of(device, "cuda.memory_reserved").stats().reserved_bytes[kAllPools].current;
}
int64_t max_memory_reserved(Device device) {
  return allocator_of(device, "cuda.max_memory_reserved").stats().reserved_bytes[kAllPools].peak;
}
void reset_peak_memory_stats(Device device) {
  allocator_of(device, "cuda.reset_peak_memory_stats").reset_peak_stats();
}
void reset_accumulated_memory_stats(Device device) {
  allocator_of(device, "cuda.reset_accumulated_memory_stats").reset_accumulated_stats();
}
std::map<std::string, int64_t> memory_stats(Device device) {
  return memory_stats_dict(allocator_of(device, "cuda.memory_stats").stats());
}
std::string memory_summary(Device device, bool abbreviated) {
  const int index = resolve_device(device, "cuda.memory_summary");
  return memory_summary_table(device_allocator(index).stats(), index, abbreviated);
}

// Every device's cache, as torch.cuda.empty_cache; a machine without devices has none to empty.
void empty_cache() {
  for (auto& d : devices()) d->allocator.empty_cache();
}

}  // namespace ember::cuda
