// Raw device memory for storages: the caching CPU allocator and, through the backend, CUDA.
#pragma once

#include <cstddef>

#include "ember/device.h"

namespace ember {

/// 64-byte aligned memory on `device`; nullptr for 0 bytes.
void* device_allocate(Device device, size_t nbytes);
/// Returns a block from device_allocate (same nbytes).
void device_free(Device device, void* data, size_t nbytes);

}  // namespace ember
