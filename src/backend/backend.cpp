// The backends installed for non-CPU device types, the memory of those devices (installed in
// core's allocator), and the error for a kernel a device lacks.
#include "backend/backend.h"

#include <utility>

#include "backend/cuda/api.h"
#include "core/allocator.h"
#include "ember/error.h"

namespace ember::backend {

namespace detail {
const Backend* installed[2] = {nullptr, nullptr};
}  // namespace detail

namespace {

// An installed backend with its own memory (a test's fake device), else CUDA's (which throws in
// CPU-only builds).
void* device_memory_allocate(Device device, size_t nbytes) {
  const Backend* b = backend_for(device.type());
  if (b && b->allocate) return b->allocate(device, nbytes);
  return cuda::allocate(device, nbytes);
}

void device_memory_free(Device device, void* data, size_t nbytes) {
  const Backend* b = backend_for(device.type());
  if (b && b->free) return b->free(device, data, nbytes);
  return cuda::free(device, data, nbytes);
}

const DeviceMemory kDeviceMemory{.allocate = &device_memory_allocate, .free = &device_memory_free};
// Before main: no storage on a device other than the CPU is made during static initialisation.
[[maybe_unused]] const bool g_memory_installed = (set_device_memory(&kDeviceMemory), true);

}  // namespace

const Backend* install_backend(DeviceType type, const Backend* b) {
  EMBER_CHECK(type != kCPU, "install_backend", "the CPU backend is built in");
  return std::exchange(detail::installed[size_t(type)], b);
}

void no_kernel(const char* op, Device device) {
  const Backend* b = backend_for(device.type());
  if (!b) fail(op, "no kernel for ", device, ": this build has no backend for its device type");
  fail(op, "no kernel for ", device, ": the ", b->name, " backend does not implement this op");
}

}  // namespace ember::backend
