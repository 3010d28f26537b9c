// What the host side (reduce.cpp) hands the CUDA reduction kernels (reduce.cu): one plain struct,
// so nvcc compiles no ember header. The input is walked as two strided index spaces: the kept
// dims (one output element each, the output contiguous in their order) and the reduced dims,
// each with size-1 dims dropped and neighbours that are contiguous in the input merged.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

enum class ReduceOp : int32_t {
  sum,
  mean,
  amax,
  amin,
  nansum,  // NaN elements count as 0
  prod,
  norm,  // p-norm: (sum |x|^p)^(1/p), max|x| for p = inf, min|x| for p = -inf, count for p = 0
  var,   // sum((x - center[o])^2) / divisor, its square root with take_sqrt
};

/// Grid: (blocks, splits). Block (x, y) reduces chunk `y` of output x, x + blocks, ... with
/// `threads` threads; float16/bfloat16/float32 accumulate in float32, float64 in float64, the
/// integers (int32, int64, bool: sum, prod, amax, amin only) in int64. With
/// one split the block writes the output; with more, each writes its accumulator to `partial`
/// (outputs x splits, of the accumulator type) and a second kernel combines each row.
struct ReduceLaunch {
  ReduceOp op;
  Type type;  // of the input, and of the output unless int64_out
  int64_t outputs;
  int64_t reduced;  // elements per output (1 for a 0-d input; 0: sum 0, mean NaN)
  int32_t kept_ndim, reduced_ndim;
  int64_t kept_shape[kMaxDims], kept_strides[kMaxDims];  // input byte strides, outermost first
  int64_t reduced_shape[kMaxDims], reduced_strides[kMaxDims];
  const char* in;
  char* out;
  void* partial;  // set by the host when splits > 1
  double divisor;      // mean: out = sum / divisor; var: max(0, n - correction)
  double p;            // norm: the order (may be 0 or +-inf)
  const void* center;  // var: each output's mean, in the accumulator type
  int32_t take_sqrt;   // var: std
  int32_t acc_out;     // 1: out holds the accumulator type, unrounded (var's mean pass)
  int32_t int64_out;   // 1: out holds int64 (sum and prod of int32 or bool)
  uint32_t blocks, splits, threads;
  int64_t chunk;  // reduced elements per split
};

/// Queues the reduction on `stream` (a cudaStream_t); returns the first failing cudaError_t.
int launch_reduce(const ReduceLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
