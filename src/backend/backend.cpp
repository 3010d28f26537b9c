// The backends installed for non-CPU device types, the memory of those devices (installed in
// core's allocator), and the error for a kernel a device lacks.
#include "backend/backend.h"

#include <utility>

#include "core/allocator.h"
#include "ember/error.h"

namespace ember::backend {

namespace detail {
const Backend* installed[2] = {nullptr, nullptr};
}  // namespace detail

namespace {

// Device memory is the installed backend's (CUDA's, the CPU-only build's refusal in
// cuda/no_cuda.cpp, or a test's fake device), so this layer names no device type.
void* device_memory_allocate(Device device, size_t nbytes) {
  const Backend* b = backend_for(device.type());
  if (!b || !b->allocate)
    fail("allocate", "no memory for ", device, ": this build has no backend for its device type");
  return b->allocate(device, nbytes);
}

void device_memory_free(Device device, void* data, size_t nbytes) {
  const Backend* b = backend_for(device.type());
  // Memory of a device comes only from its backend, so one that frees it is installed.
  if (b && b->free) b->free(device, data, nbytes);
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
