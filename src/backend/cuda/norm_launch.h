// What the host side (norm.cpp) hands the CUDA row-norm kernels (norm.cu): layer_norm and
// rms_norm over x read as `rows` rows of `cols` (the front end makes x contiguous), forward and
// fused backward. x, y, grad_out and grad_input are in x's storage type; weight, bias and the
// statistics in its op math type (float32 for float16/bfloat16, as the CPU's and PyTorch's).
// Plain structs, so nvcc compiles no ember header.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

/// y = (x - mean) rstd weight + bias per row (rms_norm: mean 0, no bias), writing each row's
/// mean (unless null) and rstd = 1 / sqrt(var + eps); one block per row. group_norm is the same
/// over x (N, C, S) read as N G rows (n, g) of C / G channels of S: its weight and bias are per
/// channel, column j of row r taking channel ((r mod G) cols + j) / S.
struct RowNormLaunch {
  Type type;  // x's and y's: float32, float64, float16 or bfloat16
  int64_t rows, cols;
  int64_t groups;        // group_norm's G; 0: weight and bias per column
  int64_t channel_size;  // group_norm's S
  double eps;
  const char* x;
  char* y;
  const char* weight;  // null: 1
  const char* bias;    // null: 0
  char* mean;          // null: rms_norm (x not centred)
  char* rstd;
  uint32_t blocks, threads;  // blocks stride over the rows
};

/// The fused backward (Note [Fused row norm backward] in backend/cpu/norm.cpp) in two passes:
/// `rows`, one block per row, dx = (g - d k - Σg / N) rstd with g = dy weight, d = x - mean and
/// k = Σ g d rstd² / N (rms_norm: mean 0, no Σg term); `columns`, a thread per column,
/// grad_weight = Σ_rows dy d rstd and grad_bias = Σ_rows dy, summed in row order.
struct RowNormBackwardLaunch {
  enum Pass : int32_t { rows_pass, columns_pass } pass;
  Type type;  // x's, grad_out's and grad_input's
  int64_t rows, cols;
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
