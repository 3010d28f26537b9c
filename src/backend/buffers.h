// The tensors a kernel makes for its results and scratch: storage from the device's allocator,
// laid out contiguously, without the op layer (no op-entry scope, no autograd, no user options).
// Kernels sit below the ops, so they take their buffers here rather than from ember::empty/zeros.
#pragma once

#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember::backend {

/// An uninitialised contiguous tensor; `op` names the caller in the size errors (a negative
/// dimension, a byte count that overflows). ember::empty is this plus its options.
Tensor new_buffer(IntArrayRef sizes, Dtype dtype, Device device = Device(kCPU),
                  const char* op = "empty");
/// A contiguous tensor of zeros (every byte zero, by the device's creation kernel).
Tensor new_zeros(IntArrayRef sizes, Dtype dtype, Device device = Device(kCPU));
/// A contiguous tensor with every element `value` (the device's fill kernel); `value` must fit
/// `dtype`, which the kernels' own constants do.
Tensor new_full(IntArrayRef sizes, Scalar value, Dtype dtype, Device device = Device(kCPU));

}  // namespace ember::backend
