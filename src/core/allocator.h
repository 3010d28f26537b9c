// Raw device memory for storages: the caching CPU allocator, and the memory of other devices
// through hooks that the layers above install (core knows no device runtime and no profiler).
#pragma once

#include <cstddef>
#include <cstdint>

#include "ember/device.h"

namespace ember {

/// 64-byte aligned memory on `device`; nullptr for 0 bytes.
void* device_allocate(Device device, size_t nbytes);
/// Returns a block from device_allocate (same nbytes).
void device_free(Device device, void* data, size_t nbytes);

/// The memory of the devices other than the CPU. The backend layer installs it before main
/// (src/backend/backend.cpp); until then such devices have none.
struct DeviceMemory {
  void* (*allocate)(Device device, size_t nbytes);
  void (*free)(Device device, void* data, size_t nbytes);
};
void set_device_memory(const DeviceMemory* memory);

/// Told of every CPU allocation and free (bytes < 0) with the allocator's totals after it: the
/// profiler's profile_memory installs one while it records (nullptr removes it).
using MemoryObserver = void (*)(uintptr_t address, int64_t bytes, int64_t total_allocated,
                                int64_t total_reserved);
void set_memory_observer(MemoryObserver observer);

}  // namespace ember
