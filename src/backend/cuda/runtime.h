// What the CUDA build's files share (runtime.cpp, memory.cpp, stream.cpp): turning a failed
// runtime call into an ember::Error, choosing a device for one call, and the current stream.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>

#include "backend/cuda/caching_allocator.h"
#include "backend/cuda/philox_generator.h"
#include "ember/device.h"
#include "ember/error.h"

namespace ember {
class Generator;
}
namespace ember::backend {
struct Backend;
}

namespace ember::cuda {

/// `[op] CUDA error: <cudart's message> (<its name>) <context...>` for a failed runtime call.
template <class... Context>
void check(cudaError_t status, const char* op, const Context&... context) {
  if (status == cudaSuccess) [[likely]]
    return;
  (void)cudaGetLastError();  // a failed call leaves its error for the next query; this one is told
  fail(op, "CUDA error: ", cudaGetErrorString(status), " (", cudaGetErrorName(status), ")",
       context...);
}

/// The index `device` names (the current device when it names none), checked against the
/// machine: `[op] cannot use cuda: no CUDA device is available (...)`, or `invalid device`.
int resolve_device(Device device, const char* op);

/// Makes device `index` current for one call, as PyTorch's device guard does, and restores the
/// caller's current device afterwards.
class DeviceGuard {
 public:
  DeviceGuard(int index, const char* op);
  ~DeviceGuard() {
    if (previous_ >= 0) (void)cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;  // the device to restore; -1 when nothing changed
};

/// An event recorded now on `stream` of device `index`, as the allocators' PendingWork
/// (memory.cpp); `op` names the caller in errors.
std::unique_ptr<PendingWork> record_event(int index, cudaStream_t stream, const char* op);

/// Keeps the pinned block `block` from reuse until the work queued on `stream` of device
/// `index` so far is done (an event recorded there; host_memory.cpp).
void record_pinned_use(const void* block, int index, cudaStream_t stream);

/// This thread's current stream on device `index` (the default stream until a StreamGuard).
cudaStream_t current_stream_handle(int index);

/// Queues one launch on the current stream of `device` (the device made current meanwhile):
/// `launch(cudaStream_t)` returns the cudaError_t of its launch, as an int or cudaError_t.
template <class Launch>
void launch_on(Device device, const char* op, Launch&& launch) {
  const int index = resolve_device(device, op);
  DeviceGuard guard(index, op);
  check(cudaError_t(launch(current_stream_handle(index))), op, " launching its kernel on cuda:",
        index);
}

/// launch_on for one of the kernels' launchers (`int launch_x(const XLaunch&, void* stream)`).
template <class L>
void launch_on(Device device, const char* op, int (*launcher)(const L&, void*), const L& l) {
  launch_on(device, op, [&](cudaStream_t s) { return launcher(l, s); });
}

/// The caching allocator of device `index` (created on first use, never destroyed).
CachingAllocator& device_allocator(int index);

/// What a random launch on `device` draws with (random.cpp): the device's default Philox
/// generator and PyTorch's grid cap there (random_max_blocks). A passed `gen` is refused, as
/// PyTorch refuses a CPU generator for a CUDA tensor: an ember::Generator is the CPU's mt19937.
struct RandomTarget {
  PhiloxGenerator& gen;
  uint32_t max_blocks;
};
RandomTarget random_target(const char* op, Device device, const Generator* gen);

/// Fill `b`'s entries of one family with the CUDA kernels (elementwise.cpp, copy.cpp, ...).
void install_elementwise_kernels(backend::Backend& b);
void install_copy_kernels(backend::Backend& b);
void install_reduce_kernels(backend::Backend& b);
void install_softmax_kernels(backend::Backend& b);
void install_linalg_kernels(backend::Backend& b);
void install_optim_kernels(backend::Backend& b);
void install_amp_kernels(backend::Backend& b);
void install_gather_kernels(backend::Backend& b);
void install_norm_kernels(backend::Backend& b);
void install_batch_norm_kernels(backend::Backend& b);
void install_loss_kernels(backend::Backend& b);
void install_sort_kernels(backend::Backend& b);
void install_scan_kernels(backend::Backend& b);
void install_pool_kernels(backend::Backend& b);
void install_random_kernels(backend::Backend& b);
void install_dropout_kernels(backend::Backend& b);
void install_randperm_kernels(backend::Backend& b);
void install_index_kernels(backend::Backend& b);
void install_nonzero_kernels(backend::Backend& b);
void install_multinomial_kernels(backend::Backend& b);
void install_arg_reduce_kernels(backend::Backend& b);
void install_creation_kernels(backend::Backend& b);
void install_conv_kernels(backend::Backend& b);
void install_renorm_kernels(backend::Backend& b);
void install_resize_kernels(backend::Backend& b);
void install_rearrange_kernels(backend::Backend& b);

}  // namespace ember::cuda
