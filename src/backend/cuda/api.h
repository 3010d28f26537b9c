// The CUDA backend's entry points used by the core. A CUDA build (-DEMBER_CUDA=ON) links
// src/backend/cuda/runtime.cpp; a CPU-only build links src/backend/cuda/no_cuda.cpp, where
// each throws a clear error.
#pragma once

#include <cstddef>

#include "ember/device.h"

namespace ember::cuda {

bool is_available();
int device_count();
void* allocate(Device device, size_t nbytes);
void free(Device device, void* data, size_t nbytes);
/// Copies nbytes between host and device memory (either side may be CUDA).
void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes);

}  // namespace ember::cuda
