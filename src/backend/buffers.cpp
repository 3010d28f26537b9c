// Kernel buffers (buffers.h): a Storage from the device's allocator under a contiguous
// TensorImpl, then, for zeros and fills, the device's own kernel.
#include "backend/buffers.h"

#include "backend/family_kernel.h"
#include "ember/error.h"
#include "ember/tensor_impl.h"

namespace ember::backend {

Tensor new_buffer(IntArrayRef sizes, Dtype dtype, Device device, const char* op) {
  for (int64_t s : sizes) EMBER_CHECK(s >= 0, op, "negative dimension ", s, " in size ", sizes);
  // Overflow anywhere is an error, even if a later 0 makes the product 0 (as in PyTorch).
  int64_t nbytes = 1;
  bool overflow = false;
  for (int64_t s : sizes) overflow |= __builtin_mul_overflow(nbytes, s, &nbytes);
  overflow |= __builtin_mul_overflow(nbytes, itemsize(dtype), &nbytes);
  EMBER_CHECK(!overflow, op, "Storage size calculation overflowed with sizes=", sizes);
  auto storage = make_intrusive<StorageImpl>(size_t(nbytes), device);
  return Tensor(
      make_intrusive<TensorImpl>(std::move(storage), dtype, sizes, contiguous_strides(sizes), 0));
}

Tensor new_zeros(IntArrayRef sizes, Dtype dtype, Device device) {
  Tensor t = new_buffer(sizes, dtype, device);
  kernel("zeros", device, &Backend::creation, &CreationKernels::zero)(t);
  return t;
}

Tensor new_full(IntArrayRef sizes, Scalar value, Dtype dtype, Device device) {
  Tensor t = new_buffer(sizes, dtype, device);
  kernel("full", device, &Backend::fill)(t, value);
  return t;
}

}  // namespace ember::backend
