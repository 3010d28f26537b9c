// The CUDA backend's entry points used by the core. A CUDA build (-DEMBER_CUDA=ON) links
// src/backend/cuda/runtime.cpp; a CPU-only build links src/backend/cuda/no_cuda.cpp, where
// each throws a clear error.
#pragma once

#include <cstddef>

#include "ember/device.h"

namespace ember::cuda {

class Stream;

bool is_available();
int device_count();
void* allocate(Device device, size_t nbytes);
void free(Device device, void* data, size_t nbytes);
/// Copies nbytes between host and device memory (either side may be CUDA).
void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes);

/// copy_bytes queued on the current stream of the CUDA side without waiting (a non_blocking copy
/// that copy_plan.h's transfer_is_async allows): the host side lies in the pinned block
/// `host_block` (a pinned storage's data), which the pinned host cache keeps from reuse until
/// the copy is done.
void copy_bytes_async(void* dst, Device dst_device, const void* src, Device src_device,
                      size_t nbytes, const void* host_block);

/// Tensor::record_stream for the storage whose data is `block` on `device` (the caching
/// allocator's record_stream).
void record_stream(const void* block, Device device, const Stream& stream);

/// Page-locked host memory for Tensor::pin_memory, from the pinned host cache (Note [Pinned host
/// cache] in caching_allocator.cpp); throws when this build or machine has no CUDA.
void* allocate_pinned(size_t nbytes);
/// Returns a block from allocate_pinned to the cache.
void free_pinned(void* data);
/// Whether `data` starts a pinned block in use (false in a build without CUDA).
bool is_pinned(const void* data);

}  // namespace ember::cuda
