// Streams and events in the CUDA build. As in PyTorch, new streams come from a per-device pool
// (32 non-blocking streams, created on first use, handed out round-robin, never destroyed), so a
// Stream is a plain value; each thread has a current stream per device, the default (null)
// stream until a StreamGuard changes it, and the caching allocator keys its pools by it.
#include <array>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <vector>

#include "backend/cuda/runtime.h"
#include "ember/cuda.h"

namespace ember::cuda {
namespace {

constexpr size_t kStreamsPerPool = 32;

struct StreamPool {
  std::once_flag created;
  std::array<cudaStream_t, kStreamsPerPool> streams{};
  std::atomic<size_t> next{0};
};

StreamPool& pool_of(int index) {
  // Leaked: the streams live as long as the process (PyTorch's pool does the same).
  static auto* pools = new std::vector<StreamPool>(size_t(device_count()));
  StreamPool& pool = (*pools)[size_t(index)];
  std::call_once(pool.created, [&] {
    DeviceGuard guard(index, "cuda.Stream");
    for (cudaStream_t& s : pool.streams)
      check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cuda.Stream",
            " creating a stream on cuda:", index);
  });
  return pool;
}

// This thread's current stream per device; null entries (and devices past the end) mean the
// default stream.
thread_local std::vector<cudaStream_t> t_current;

// cudaStreamQuery's or cudaEventQuery's answer: done, not yet (which is no error), or a failure.
bool is_done(cudaError_t status, const char* op, int device) {
  if (status == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  check(status, op, " on cuda:", device);
  return true;
}

cudaStream_t as_stream(void* handle) { return static_cast<cudaStream_t>(handle); }
cudaEvent_t as_event(void* handle) { return static_cast<cudaEvent_t>(handle); }

}  // namespace

cudaStream_t current_stream_handle(int index) {
  return size_t(index) < t_current.size() ? t_current[size_t(index)] : nullptr;
}

Stream::Stream(Device device) : device_(resolve_device(device, "cuda.Stream")), handle_(nullptr) {
  StreamPool& pool = pool_of(device_);
  handle_ = pool.streams[pool.next.fetch_add(1) % kStreamsPerPool];
}

Stream Stream::default_stream(Device device) {
  return Stream(resolve_device(device, "cuda.default_stream"), nullptr);
}

Stream current_stream(Device device) {
  const int index = resolve_device(device, "cuda.current_stream");
  return Stream(index, current_stream_handle(index));
}

bool Stream::query() const {
  DeviceGuard guard(device_, "cuda.Stream.query");
  return is_done(cudaStreamQuery(as_stream(handle_)), "cuda.Stream.query", device_);
}

void Stream::synchronize() const {
  DeviceGuard guard(device_, "cuda.Stream.synchronize");
  check(cudaStreamSynchronize(as_stream(handle_)), "cuda.Stream.synchronize", " on cuda:", device_);
}

void Stream::wait_event(const Event& event) const { event.wait(*this); }

void Stream::wait_stream(const Stream& other) const {
  Event event;
  event.record(other);
  event.wait(*this);
}

StreamGuard::StreamGuard(const Stream& stream)
    : previous_stream_(current_stream(stream.device())), previous_device_(current_device()) {
  const int index = stream.device().index();
  if (index != previous_device_) set_device(index);
  if (t_current.size() <= size_t(index)) t_current.resize(size_t(index) + 1, nullptr);
  t_current[size_t(index)] = as_stream(stream.handle());
}

StreamGuard::~StreamGuard() {
  const int index = previous_stream_.device().index();
  t_current[size_t(index)] = as_stream(previous_stream_.handle());
  if (index != previous_device_) (void)cudaSetDevice(previous_device_);
}

// Destroying an event that work still refers to is fine: CUDA releases it when that work is done.
Event::~Event() {
  if (!handle_) return;
  const cudaError_t status = cudaEventDestroy(as_event(handle_));
  if (status != cudaSuccess && status != cudaErrorCudartUnloading)
    std::fprintf(stderr, "ember: [cuda.Event] CUDA error destroying an event: %s\n",
                 cudaGetErrorString(status));
}

void Event::record() { record(current_stream()); }

void Event::record(const Stream& stream) {
  const int index = stream.device().index();
  EMBER_CHECK(!handle_ || device_ == index, "cuda.Event.record", "the event was created on cuda:",
              device_, " and cannot be recorded on a stream of cuda:", index);
  DeviceGuard guard(index, "cuda.Event.record");
  if (!handle_) {
    cudaEvent_t event = nullptr;
    check(cudaEventCreateWithFlags(&event, timing_ ? cudaEventDefault : cudaEventDisableTiming),
          "cuda.Event.record", " creating an event on cuda:", index);
    handle_ = event;
    device_ = index;
  }
  check(cudaEventRecord(as_event(handle_), as_stream(stream.handle())), "cuda.Event.record",
        " on cuda:", index);
}

bool Event::query() const {
  if (!handle_) return true;
  DeviceGuard guard(device_, "cuda.Event.query");
  return is_done(cudaEventQuery(as_event(handle_)), "cuda.Event.query", device_);
}

void Event::synchronize() const {
  if (!handle_) return;
  DeviceGuard guard(device_, "cuda.Event.synchronize");
  check(cudaEventSynchronize(as_event(handle_)), "cuda.Event.synchronize", " on cuda:", device_);
}

void Event::wait(const Stream& stream) const {
  if (!handle_) return;  // as PyTorch: waiting for an event never recorded waits for nothing
  DeviceGuard guard(stream.device().index(), "cuda.Event.wait");
  check(cudaStreamWaitEvent(as_stream(stream.handle()), as_event(handle_), 0), "cuda.Event.wait",
        " on ", stream.device());
}

float Event::elapsed_time(const Event& end) const {
  const char* op = "cuda.Event.elapsed_time";
  EMBER_CHECK(timing_ && end.timing_, op,
              "both events must be created with enable_timing = true");
  EMBER_CHECK(handle_ && end.handle_, op,
              "both events must be recorded before calculating elapsed time");
  DeviceGuard guard(device_, op);
  float ms = 0;
  check(cudaEventElapsedTime(&ms, as_event(handle_), as_event(end.handle_)), op,
        " (are both events complete? call synchronize() on the end event first)");
  return ms;
}

}  // namespace ember::cuda
