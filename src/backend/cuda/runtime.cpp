// The CUDA build's side of the core's entry points (backend/cuda_api.h, ember/cuda.h) through the
// CUDA runtime API: device count, memory and copies — what the core calls today. Kernels come
// with the CUDA issue: the kCUDA backend installed here has memory functions only, so every op on
// a CUDA tensor is `[op] no kernel for cuda:0: the cuda backend does not implement this op`.
//
// Every failing runtime call is an ember::Error naming the op, the device and cudart's own words
// ("[cuda.allocate] CUDA error: out of memory (cudaErrorMemoryAllocation) allocating ..."). A
// machine without a driver or a GPU has no CUDA devices, as in PyTorch: device_count() is 0 and
// is_available() false, and anything that would touch a device throws.
#include <cuda_runtime_api.h>

#include <cstdio>

#include "backend/backend.h"
#include "backend/cuda_api.h"
#include "ember/cuda.h"
#include "ember/error.h"

namespace ember::cuda {
namespace {

/// `[op] CUDA error: <cudart's message> (<its name>) <context...>` for a failed runtime call.
template <class... Context>
void check(cudaError_t status, const char* op, const Context&... context) {
  if (status == cudaSuccess) [[likely]]
    return;
  (void)cudaGetLastError();  // a failed call leaves its error for the next query; this one is told
  fail(op, "CUDA error: ", cudaGetErrorString(status), " (", cudaGetErrorName(status), ")",
       context...);
}

/// The runtime's answers that mean "this machine has no usable CUDA device" rather than a fault.
bool means_no_device(cudaError_t status) {
  return status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver;
}

/// Makes `device` (an index; -1 for the current one) current for one call, as PyTorch's device
/// guard does, and restores the caller's current device afterwards.
class DeviceGuard {
 public:
  DeviceGuard(Device device, const char* op) {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (means_no_device(status)) {
      (void)cudaGetLastError();
      fail(op, "cannot use ", device, ": no CUDA device is available (CUDA error: ",
           cudaGetErrorString(status), ")");
    }
    check(status, op, " counting devices");
    EMBER_CHECK(device.index() < count, op, "invalid device ", device, ": this machine has ", count,
                " CUDA device", count == 1 ? "" : "s");
    check(cudaGetDevice(&previous_), op, " asking for the current device");
    if (!device.has_index() || device.index() == previous_) return;
    check(cudaSetDevice(device.index()), op, " selecting ", device);
    restore_ = true;
  }
  ~DeviceGuard() {
    if (restore_) (void)cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
  bool restore_ = false;
};

}  // namespace

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

void synchronize() {
  DeviceGuard guard(Device(kCUDA), "cuda.synchronize");
  check(cudaDeviceSynchronize(), "cuda.synchronize");
}

void* allocate(Device device, size_t nbytes) {
  if (nbytes == 0) return nullptr;  // as the CPU allocator: no block for an empty storage
  DeviceGuard guard(device, "cuda.allocate");
  void* data = nullptr;
  check(cudaMalloc(&data, nbytes), "cuda.allocate", " allocating ", nbytes, " bytes on ", device);
  return data;
}

// Called from a storage's destructor, which must not throw: a failure is reported on stderr. At
// process exit the runtime may already be gone (cudaErrorCudartUnloading), which frees everything.
void free(Device device, void* data, size_t nbytes) {
  if (!data) return;
  try {
    DeviceGuard guard(device, "cuda.free");
    const cudaError_t status = cudaFree(data);
    if (status == cudaErrorCudartUnloading) return;
    check(status, "cuda.free", " freeing ", nbytes, " bytes on ", device);
  } catch (const Error& e) {
    std::fprintf(stderr, "ember: %s\n", e.what());
  }
}

void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes) {
  if (nbytes == 0) return;
  const char* op = "cuda.copy";
  if (dst_device.is_cuda() && src_device.is_cuda() && !(dst_device == src_device)) {
    // Between two GPUs: cudaMemcpyPeer takes both indices (stages through the host if no P2P).
    int dst_index = dst_device.index(), src_index = src_device.index();
    if (dst_index < 0 || src_index < 0) {
      int current = 0;
      check(cudaGetDevice(&current), op, " asking for the current device");
      if (dst_index < 0) dst_index = current;
      if (src_index < 0) src_index = current;
    }
    check(cudaMemcpyPeer(dst, dst_index, src, src_index, nbytes), op, " copying ", nbytes,
          " bytes from ", src_device, " to ", dst_device);
    return;
  }
  EMBER_CHECK(src_device.is_cuda() || dst_device.is_cuda(), op,
              "expected a CUDA device on one side, got ", src_device, " and ", dst_device);
  const cudaMemcpyKind kind = !src_device.is_cuda()   ? cudaMemcpyHostToDevice
                              : !dst_device.is_cuda() ? cudaMemcpyDeviceToHost
                                                      : cudaMemcpyDeviceToDevice;
  DeviceGuard guard(dst_device.is_cuda() ? dst_device : src_device, op);
  check(cudaMemcpy(dst, src, nbytes, kind), op, " copying ", nbytes, " bytes from ", src_device,
        " to ", dst_device);
}

namespace {

// The kCUDA backend: memory only. Its copy and fill entries stay empty, since the table's copy
// converts dtypes and walks any strides (a kernel, not a cudaMemcpy); cross-device copies reach
// copy_bytes directly from the copy front end.
constinit const backend::Backend kCudaBackend{
    .name = "cuda", .allocate = &allocate, .free = &free};

// Installed when the library loads (this file is always linked: the allocator calls into it).
// Nothing here talks to the driver, so a machine without one loads ember as any other.
[[maybe_unused]] const bool kInstalled = [] {
  backend::install_backend(kCUDA, &kCudaBackend);
  return true;
}();

}  // namespace
}  // namespace ember::cuda
