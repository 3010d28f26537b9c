// What the host side (norm.cpp) hands the CUDA row-norm kernels (norm.cu): layer_norm and
// rms_norm over x read as `rows` rows of `cols` (the front end makes x contiguous), forward and
// fused backward. x, y, grad_out and grad_input are in x's storage type; weight, bias and the
// statistics in its op math type (float32 for float16/bfloat16, as the CPU's and PyTorch's).
// Plain structs, so nvcc compiles no ember header.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

/// Which weight and bias a row's column takes. layer_norm and rms_norm: {1, 1}, column j takes
/// the j-th. group_norm reads x (N, C, S) as N G rows (n, g) of C / G channels of S elements:
/// {G, S}, column j of row r takes channel ((r mod G) cols + j) / S.
struct NormChannels {
  int64_t groups, size;
};

/// y = (x - mean) rstd weight + bias per row (rms_norm: mean 0, no bias), writing each row's
/// mean (unless null) and rstd = 1 / sqrt(var + eps); one block per row.
struct RowNormLaunch {
  Type type;  // x's and y's: float32, float64, float16 or bfloat16
  int64_t rows, cols;
  NormChannels channels;
  double eps;
  const char* x;
  char* y;
  const char* weight;  // null: 1
  const char* bias;    // null: 0
  char* mean;          // null: rms_norm (x not centred)
  char* rstd;
  uint32_t blocks, threads;  // blocks stride over the rows
};

/// The fused backward (Note [Fused row norm backward] in backend/cpu/norm_rows.cpp) in two passes:
/// `rows`, one block per row, dx = (g - d k - Σg / N) rstd with g = dy weight, d = x - mean and
/// k = Σ g d rstd² / N (rms_norm: mean 0, no Σg term; group_norm's Note [Fused group norm
/// backward] is the same over its rows); `columns`, a thread per channel, grad_weight =
/// Σ dy d rstd and grad_bias = Σ dy over the channel's elements, in row order.
struct RowNormBackwardLaunch {
  enum Pass : int32_t { rows_pass, columns_pass } pass;
  Type type;  // x's, grad_out's and grad_input's
  int64_t rows, cols;
  NormChannels channels;
  const char* x;
  const char* grad_out;
  const char* mean;  // null: rms_norm
  const char* rstd;
  const char* weight;  // null: 1
  char* grad_input;    // null: not computed (so is its pass)
  char* grad_weight;   // null: not computed
  char* grad_bias;     // null: not computed
  uint32_t blocks, threads;
};

/// Queue the kernel on `stream` (a cudaStream_t); return the launch's cudaError_t.
int launch_row_norm(const RowNormLaunch& launch, void* stream);
int launch_row_norm_backward(const RowNormBackwardLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
