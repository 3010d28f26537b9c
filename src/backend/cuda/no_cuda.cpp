// Linked into CPU-only builds in place of the CUDA backend: CUDA is reported absent, there is no
// cache to empty, and anything else that would need a device throws one clear error.
#include "backend/backend.h"
#include "backend/cuda/api.h"
#include "ember/cuda.h"
#include "ember/error.h"

namespace ember::cuda {
namespace {
[[noreturn]] void no_cuda(const char* op) {
  fail(op, "ember was built without CUDA support; rebuild with -DEMBER_CUDA=ON on a machine with "
           "the CUDA toolkit to use CUDA devices");
}
}  // namespace

bool is_available() { return false; }
int device_count() { return 0; }
void* allocate(Device, size_t) { no_cuda("cuda"); }
void free(Device, void*, size_t) { no_cuda("cuda"); }
void copy_bytes(void*, Device, const void*, Device, size_t) { no_cuda("to"); }
void copy_bytes_async(void*, Device, const void*, Device, size_t, const void*) { no_cuda("to"); }
// As PyTorch's CPU-only build: pinning is refused (aten::_pin_memory has no kernel there) and
// nothing is pinned.
void* allocate_pinned(size_t) { no_cuda("pin_memory"); }
void free_pinned(void*) { no_cuda("pin_memory"); }
bool is_pinned(const void*) { return false; }
void record_stream(const void*, Device, const Stream&) { no_cuda("record_stream"); }

int current_device() { no_cuda("cuda.current_device"); }
void set_device(int) { no_cuda("cuda.set_device"); }
std::string get_device_name(int) { no_cuda("cuda.get_device_name"); }
void synchronize(Device) { no_cuda("cuda.synchronize"); }

Stream::Stream(Device) : device_(-1), handle_(nullptr) { no_cuda("cuda.Stream"); }
Stream Stream::default_stream(Device) { no_cuda("cuda.default_stream"); }
Stream current_stream(Device) { no_cuda("cuda.current_stream"); }
bool Stream::query() const { no_cuda("cuda.Stream.query"); }
void Stream::synchronize() const { no_cuda("cuda.Stream.synchronize"); }
void Stream::wait_event(const Event&) const { no_cuda("cuda.Stream.wait_event"); }
void Stream::wait_stream(const Stream&) const { no_cuda("cuda.Stream.wait_stream"); }
StreamGuard::StreamGuard(const Stream& stream) : previous_stream_(stream), previous_device_(-1) {
  no_cuda("cuda.StreamGuard");
}
StreamGuard::~StreamGuard() = default;

// An Event can be made (it holds no CUDA object until recorded); using it needs a device.
Event::~Event() = default;
void Event::record() { no_cuda("cuda.Event.record"); }
void Event::record(const Stream&) { no_cuda("cuda.Event.record"); }
bool Event::query() const { no_cuda("cuda.Event.query"); }
void Event::synchronize() const { no_cuda("cuda.Event.synchronize"); }
void Event::wait(const Stream&) const { no_cuda("cuda.Event.wait"); }
float Event::elapsed_time(const Event&) const { no_cuda("cuda.Event.elapsed_time"); }

int64_t memory_allocated(Device) { no_cuda("cuda.memory_allocated"); }
int64_t max_memory_allocated(Device) { no_cuda("cuda.max_memory_allocated"); }
int64_t memory_reserved(Device) { no_cuda("cuda.memory_reserved"); }
int64_t max_memory_reserved(Device) { no_cuda("cuda.max_memory_reserved"); }
void reset_peak_memory_stats(Device) { no_cuda("cuda.reset_peak_memory_stats"); }
void reset_accumulated_memory_stats(Device) { no_cuda("cuda.reset_accumulated_memory_stats"); }
void empty_cache() {}
std::map<std::string, int64_t> memory_stats(Device) { no_cuda("cuda.memory_stats"); }
std::string memory_summary(Device, bool) { no_cuda("cuda.memory_summary"); }

namespace {
// The kCUDA backend of this build: only device memory, refused with the message above, so every
// way to a CUDA tensor (a factory, .to(), .cuda()) says how to get one. Installed when the library
// loads; this file is always linked, as runtime.cpp is in a CUDA build, because the copy front end
// (ops/copy.cpp) calls copy_bytes.
const backend::Backend kNoCudaBackend = [] {
  backend::Backend b;
  b.name = "cuda";
  b.allocate = &allocate;
  b.free = &free;
  return b;
}();
[[maybe_unused]] const bool kInstalled = (backend::install_backend(kCUDA, &kNoCudaBackend), true);
}  // namespace

}  // namespace ember::cuda
