// What the host side (creation.cpp) hands the CUDA creation kernels (creation.cu): arange,
// linspace and logspace into a contiguous 1-D tensor, their scalars already converted on the host
// as the CPU kernel converts them (backend/cpu/creation.cpp). A plain struct, so nvcc compiles no
// ember header.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

/// out[i] for i < n, a thread per element, by the CPU kernel's formulas (Note [Range rounding] in
/// backend/cpu/creation.cpp): elements below vector_end in runs of `lanes` from each run's first
/// element rounded to the storage type, the rest each from start (arange), or from the nearer
/// end (linspace).
struct RangeLaunch {
  enum Kind : int32_t { arange, linspace, logspace } kind;
  Type type;  // float32, float64, float16, bfloat16, int32 or int64
  int64_t n;
  int64_t lanes;       // PyTorch's CPU vector: 32 bytes of elements
  int64_t vector_end;  // n rounded down to whole pairs of vectors; 0 for an integer arange
  // arange of a floating type: start and step in the accumulate type (double; float for the half
  // types, exact in a double). linspace: start, end and step in the type it computes in (double
  // for the integers; the half types' values rounded to them, held exactly in a double).
  double start, step, end;
  int64_t int_start, int_step;  // arange of an integer type, in int64
  const double* exponents;      // logspace: out[i] = base ^ exponents[i]
  double base;
  char* out;
  uint32_t blocks, threads;  // a grid-stride loop over the n elements
};

/// Queue the kernel on `stream` (a cudaStream_t); return the launch's cudaError_t.
int launch_range(const RangeLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
