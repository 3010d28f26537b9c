// The host half of the CUDA copy and fill kernels, apart from the CUDA build so that every build
// compiles and tests it: a copy or fill becomes a kernels::CopyLaunch / FillLaunch over the same
// strided layout as the elementwise launches (plan_strided), and a copy that is a plain run of
// equal bytes is recognised so that it goes to cudaMemcpyAsync instead. No device is touched.
#pragma once

#include <cstdint>

#include "backend/cuda/copy_launch.h"
#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember::cuda {

/// The storage type of `dtype` in the cuda kernels, or `[op] the cuda backend has no <dtype>
/// kernel yet (...)` for uint8, int8 and int16.
kernels::Type storage_type(Dtype dtype, const char* op);

/// The data of an optional operand (a kernel's null for an undefined tensor), as P*.
template <class P = char>
P* data_or_null(const Tensor& t) {
  return t.defined() ? static_cast<P*>(t.data_ptr()) : nullptr;
}

/// dst = src converted: equal shapes (src expanded by the front end), any layouts and dtypes.
kernels::CopyLaunch plan_copy_launch(const Tensor& dst, const Tensor& src);

/// The bytes a copy moves when it is one contiguous run in both operands of one storage type
/// (then cudaMemcpyAsync does it), or -1 when it needs the kernel.
int64_t memcpy_bytes(const kernels::CopyLaunch& launch);

/// Whether a copy of bytes between `src` and `dst` (one of them a CUDA device) is queued without
/// waiting for it, as PyTorch's copy_kernel_cuda decides: only when non_blocking is asked and the
/// host side is pinned memory (so the DMA reads or writes it directly, while the host goes on).
/// From or to unpinned memory the copy stays synchronous, as in PyTorch (the driver stages such
/// memory through its own pinned buffer anyway). Copies between two CUDA devices also wait
/// (ember does not yet order other streams after them, which PyTorch does with events).
bool transfer_is_async(Device dst, Device src, bool non_blocking, bool host_side_pinned);

/// dst = value, converted to dst's dtype on the host (Scalar::to, as the CPU's fill); any dtype.
kernels::FillLaunch plan_fill_launch(const Tensor& dst, Scalar value);

}  // namespace ember::cuda
