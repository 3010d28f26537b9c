// The CUDA build's side of the core's entry points (backend/cuda/api.h, ember/cuda.h) through the
// CUDA runtime API: devices, memory through the caching allocator (memory.cpp) and copies. The
// kCUDA backend installed here has memory functions and the kernels of the families' files
// (elementwise, copy/fill, ...); any other op on a CUDA tensor is `[op] no kernel for cuda:0: the
// cuda backend does not implement this op` until its kernels come.
//
// Every failing runtime call is an ember::Error naming the op, the device and cudart's own words
// ("[cuda.allocate] CUDA error: ..."). A machine without a driver or a GPU has no CUDA devices,
// as in PyTorch: device_count() is 0 and is_available() false, and anything that would touch a
// device throws.
#include <cstdio>
#include <utility>

#include "backend/backend.h"
#include "backend/cuda/api.h"
#include "backend/cuda/runtime.h"
#include "ember/cuda.h"

namespace ember::cuda {
namespace {

/// The runtime's answers that mean "this machine has no usable CUDA device" rather than a fault.
bool means_no_device(cudaError_t status) {
  return status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver;
}

}  // namespace

int resolve_device(Device device, const char* op) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (means_no_device(status)) {
    (void)cudaGetLastError();
    fail(op, "cannot use ", device, ": no CUDA device is available (CUDA error: ",
         cudaGetErrorString(status), ")");
  }
  check(status, op, " counting devices");
  int index = device.index();
  if (index < 0) check(cudaGetDevice(&index), op, " asking for the current device");
  EMBER_CHECK(index < count, op, "invalid device ", device, ": this machine has ", count,
              " CUDA device", count == 1 ? "" : "s");
  return index;
}

DeviceGuard::DeviceGuard(int index, const char* op) {
  int current = 0;
  check(cudaGetDevice(&current), op, " asking for the current device");
  if (current == index) return;
  check(cudaSetDevice(index), op, " selecting cuda:", index);
  previous_ = current;
}

int device_count() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (means_no_device(status)) {
    (void)cudaGetLastError();
    return 0;
  }
  check(status, "cuda.device_count");
  return count;
}

bool is_available() { return device_count() > 0; }

int current_device() { return resolve_device(Device(kCUDA), "cuda.current_device"); }

void set_device(int index) {
  const int checked = resolve_device(Device(kCUDA, index), "cuda.set_device");
  check(cudaSetDevice(checked), "cuda.set_device", " selecting cuda:", checked);
}

std::string get_device_name(int index) {
  const int checked = resolve_device(Device(kCUDA, index), "cuda.get_device_name");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, checked), "cuda.get_device_name", " on cuda:", checked);
  return prop.name;
}

void synchronize(Device device) {
  const int index = resolve_device(device, "cuda.synchronize");
  DeviceGuard guard(index, "cuda.synchronize");
  check(cudaDeviceSynchronize(), "cuda.synchronize", " on cuda:", index);
}

void* allocate(Device device, size_t nbytes) {
  if (nbytes == 0) return nullptr;  // as the CPU allocator: no block for an empty storage
  const int index = resolve_device(device, "cuda.allocate");
  const auto stream = reinterpret_cast<StreamId>(current_stream_handle(index));
  return device_allocator(index).allocate(nbytes, stream);
}

// Called from a storage's destructor, which must not throw: a failure is reported on stderr.
// A storage made for "cuda" (no index) was allocated on the device current then; the current one
// is tried first, then the others.
void free(Device device, void* data, size_t) {
  if (!data) return;
  try {
    if (device.has_index()) return device_allocator(device.index()).free(data);
    const int current = resolve_device(device, "cuda.free");
    if (device_allocator(current).owns(data)) return device_allocator(current).free(data);
    for (int i = 0, n = device_count(); i < n; ++i)
      if (device_allocator(i).owns(data)) return device_allocator(i).free(data);
    fail("cuda.free", "no device's caching allocator allocated ", data);
  } catch (const Error& e) {
    std::fprintf(stderr, "ember: %s\n", e.what());
  }
}

// On the current stream of the CUDA side, then waited for: the copy is synchronous for the
// caller, and ordered after the work queued on that stream (which the default-stream cudaMemcpy
// is not, for a non-blocking stream).
namespace {

// Queues a copy of nbytes (> 0) on the current stream of the CUDA side's device; returns that
// device and stream, for the caller to wait on or to record on.
std::pair<int, cudaStream_t> queue_copy(void* dst, Device dst_device, const void* src,
                                        Device src_device, size_t nbytes, const char* op) {
  EMBER_CHECK(src_device.is_cuda() || dst_device.is_cuda(), op,
              "expected a CUDA device on one side, got ", src_device, " and ", dst_device);
  const int dst_index = dst_device.is_cuda() ? resolve_device(dst_device, op) : -1;
  const int src_index = src_device.is_cuda() ? resolve_device(src_device, op) : -1;
  const int index = dst_index >= 0 ? dst_index : src_index;
  DeviceGuard guard(index, op);
  const cudaStream_t stream = current_stream_handle(index);
  if (dst_index >= 0 && src_index >= 0 && dst_index != src_index) {
    // Between two GPUs: cudaMemcpyPeer takes both indices (stages through the host if no P2P).
    check(cudaMemcpyPeerAsync(dst, dst_index, src, src_index, nbytes, stream), op, " copying ",
          nbytes, " bytes from ", src_device, " to ", dst_device);
  } else {
    const cudaMemcpyKind kind = src_index < 0   ? cudaMemcpyHostToDevice
                                : dst_index < 0 ? cudaMemcpyDeviceToHost
                                                : cudaMemcpyDeviceToDevice;
    check(cudaMemcpyAsync(dst, src, nbytes, kind, stream), op, " copying ", nbytes, " bytes from ",
          src_device, " to ", dst_device);
  }
  return {index, stream};
}

}  // namespace

void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes) {
  if (nbytes == 0) return;
  const char* op = "cuda.copy";
  const auto [index, stream] = queue_copy(dst, dst_device, src, src_device, nbytes, op);
  DeviceGuard guard(index, op);
  check(cudaStreamSynchronize(stream), op, " waiting for the copy from ", src_device, " to ",
        dst_device);
}

void copy_bytes_async(void* dst, Device dst_device, const void* src, Device src_device,
                      size_t nbytes, const void* host_block) {
  if (nbytes == 0) return;
  const auto [index, stream] = queue_copy(dst, dst_device, src, src_device, nbytes, "cuda.copy");
  record_pinned_use(host_block, index, stream);
}

namespace {

// The kCUDA backend: memory, and the kernels of each family's file. Cross-device copies reach
// copy_bytes directly from the copy front end; the table's copy (copy.cpp) converts dtypes and
// walks any strides within one device.
const backend::Backend kCudaBackend = [] {
  backend::Backend b;
  b.name = "cuda";
  b.allocate = &allocate;
  b.free = &free;
  install_elementwise_kernels(b);
  install_copy_kernels(b);
  install_reduce_kernels(b);
  install_softmax_kernels(b);
  install_linalg_kernels(b);
  install_optim_kernels(b);
  install_amp_kernels(b);
  install_gather_kernels(b);
  install_norm_kernels(b);
  install_batch_norm_kernels(b);
  install_loss_kernels(b);
  install_sort_kernels(b);
  install_scan_kernels(b);
  install_pool_kernels(b);
  install_random_kernels(b);
  install_dropout_kernels(b);
  install_randperm_kernels(b);
  install_index_kernels(b);
  install_nonzero_kernels(b);
  install_multinomial_kernels(b);
  install_arg_reduce_kernels(b);
  install_creation_kernels(b);
  install_conv_kernels(b);
  install_renorm_kernels(b);
  install_resize_kernels(b);
  install_rearrange_kernels(b);
  return b;
}();

// Installed when the library loads (this file is always linked: the copy front end, ops/copy.cpp,
// calls copy_bytes).
// Nothing here talks to the driver, so a machine without one loads ember as any other.
[[maybe_unused]] const bool kInstalled = [] {
  backend::install_backend(kCUDA, &kCudaBackend);
  return true;
}();

}  // namespace
}  // namespace ember::cuda
