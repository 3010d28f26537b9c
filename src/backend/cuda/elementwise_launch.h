// What the host side (elementwise.cpp) hands the CUDA elementwise kernels (elementwise.cu): one
// plain struct, so nvcc compiles no ember header. The layout is the shared strided loop's plan
// (src/backend/cpu/loop.h): size-1 dims dropped, dims contiguous in every operand merged, strides
// in bytes (0 for a broadcast dim), operand 0 the output.
#pragma once

#include <cstdint>

#include "backend/elementwise_kernel_list.h"

namespace ember::cuda::kernels {

inline constexpr int kMaxDims = 12;
// The output and up to three inputs: where's (condition, x, y) walk in one pass, as in PyTorch's
// TensorIterator, instead of a copy of y and a masked pass (twice the traffic); the other
// launches pay 104 bytes more of kernel parameters.
inline constexpr int kMaxOperands = 4;

/// Storage types; float16/bfloat16 compute in float32, as PyTorch's kernels do. Each elementwise
/// kernel takes those of them the CPU kernel of the same ElementwiseKernel takes (the table in
/// elementwise_body.cuh); copies convert between all of them.
enum class Type : int32_t { float32, float64, float16, bfloat16, int32, int64, boolean };

/// The strided layout a grid-stride kernel walks over up to kMaxOperands operands (operand 0 the
/// output), shared by the elementwise, copy and fill launches: one indexing scheme for all
/// (strided.cuh turns an element's index into each operand's byte offset).
struct Strided {
  int32_t ndim;  // 0: a single element
  int64_t numel;
  uint32_t blocks;   // grid size; the kernel strides over the grid for numel beyond it
  uint32_t threads;  // per block
  int64_t shape[kMaxDims];                  // outermost first
  int64_t strides[kMaxOperands][kMaxDims];  // bytes
  char* base[kMaxOperands];
};

/// One elementwise kernel: `op`, an entry of the backend's list (backend/elementwise_kernel_list.h,
/// whose comments say which arguments each reads), over operands of storage type `type` (the
/// call's compute dtype), storing `out_type` (`type`, or bool for comparisons and predicates).
/// The arguments are backend::ElementwiseArgs converted on the host as the CPU kernel converts
/// them: a scalar as a double for a floating type and as an int64 for int32, int64 and bool (a
/// double would round an int64 beyond 2^53); clamp's absent bounds as the type's extremes.
struct Launch : Strided {
  backend::ElementwiseKernel op;
  Type type;
  Type out_type;
  double scalar[2];
  int64_t integer_scalar[2];
  double real[3];  // round_decimals: real[0] is 10^|decimals| (the CPU kernel's scale)
  int64_t integer;
  bool flag;
};

/// Queues the kernel on `stream` (a cudaStream_t); returns the launch's cudaError_t.
int launch_elementwise(const Launch& launch, void* stream);

}  // namespace ember::cuda::kernels
