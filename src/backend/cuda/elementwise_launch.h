// What the host side (elementwise.cpp) hands the CUDA elementwise kernels (elementwise.cu): one
// plain struct, so nvcc compiles no ember header. The layout is the shared strided loop's plan
// (src/backend/cpu/loop.h): size-1 dims dropped, dims contiguous in every operand merged, strides
// in bytes (0 for a broadcast dim), operand 0 the output.
#pragma once

#include <cstdint>

namespace ember::cuda::kernels {

inline constexpr int kMaxDims = 12;
// The output and up to three inputs: where's (condition, x, y) walk in one pass, as in PyTorch's
// TensorIterator, instead of a copy of y and a masked pass (twice the traffic); the other
// launches pay 104 bytes more of kernel parameters.
inline constexpr int kMaxOperands = 4;

/// The kernels there are; each has a functor in elementwise.cu.
enum class Op : int32_t {
  // unary
  neg, abs, sqrt, rsqrt, square, reciprocal, exp, log, sin, cos, tanh, sigmoid, relu,
  // binary (add/sub read alpha, masked_fill reads it as the value)
  add, sub, mul, true_div, maximum, minimum, masked_fill,
  // ternary
  where,
};
inline constexpr int kFirstBinary = int(Op::add);

/// Storage types; float16/bfloat16 compute in float32, as PyTorch's kernels do. The elementwise
/// kernels take the four floating ones, masked_fill and where also int32, int64 and bool (they
/// select, computing nothing); copies convert between all of them.
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

struct Launch : Strided {
  Op op;
  Type type;
  double alpha;  // add/sub: out = a ± alpha * b; masked_fill: the value where b != 0
  // masked_fill on int32/int64/bool: the value, converted to the storage type on the host as the
  // CPU kernel does (alpha, a double, would round an int64 beyond 2^53).
  int64_t integer;
};

/// Queues the kernel on `stream` (a cudaStream_t); returns the launch's cudaError_t.
int launch_elementwise(const Launch& launch, void* stream);

}  // namespace ember::cuda::kernels
