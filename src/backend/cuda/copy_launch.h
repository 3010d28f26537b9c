// What the host side (copy.cpp) hands the CUDA copy and fill kernels (copy.cu): the strided
// layout of elementwise_launch.h plus the two storage types of a converting copy, or the bytes of
// a fill's value. Plain structs, so nvcc compiles no ember header.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

/// Bytes per element of a storage type.
constexpr int64_t type_size(Type t) {
  switch (t) {
    case Type::float64: case Type::int64: return 8;
    case Type::float32: case Type::int32: return 4;
    case Type::float16: case Type::bfloat16: return 2;
    case Type::boolean: return 1;
  }
  return 0;
}

/// dst (operand 0) = src (operand 1) converted as ember's convert() does (core/convert.h):
/// to bool is != 0, the half types go through float, floating to integer truncates.
struct CopyLaunch : Strided {
  Type dst;
  Type src;
};

/// Every element of operand 0 set to `bits`' low `itemsize` bytes (the value already converted
/// to the tensor's dtype on the host), so one kernel per element size serves every dtype.
struct FillLaunch : Strided {
  int32_t itemsize;  // 1, 2, 4 or 8
  uint64_t bits;
};

/// Queue the kernel on `stream` (a cudaStream_t); return the launch's cudaError_t.
int launch_copy(const CopyLaunch& launch, void* stream);
int launch_fill(const FillLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
