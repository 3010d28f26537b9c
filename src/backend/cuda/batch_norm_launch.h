// What the host side (batch_norm.cpp) hands the CUDA batch norm kernels (batch_norm.cu): x (and
// dy) contiguous (N, C, S), each channel c the N planes of S elements at n C S + c S. Weight,
// bias, the saved statistics and the gradients of weight and bias are (C) in x's op math type;
// the batch's or running statistics are float64 (C), as the CPU's. A plain struct, so nvcc
// compiles no ember header.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

/// The passes, each over its own grid:
///   stats       one block per channel: mean and biased var (float64) of the channel;
///   params      a thread per channel: save_mean, save_invstd = 1 / sqrt(var + eps), and the
///               channel's scale = invstd w and shift = b - mean scale into `scratch`;
///   affine      a thread per element: y = x scale + shift;
///   grad_sums   one block per channel: Σ dy and Σ dy (x - mean): grad_weight = the second times
///               invstd, grad_bias = the first, and in `scratch` training's k = Σdy(x - mean)
///               invstd² / M and Σdy / M (M = N S);
///   grad_input  a thread per element: dx = (dy - (x - mean) k - Σdy / M) invstd w (eval: k and
///               the mean term 0), Note [Fused batch norm backward] in backend/cpu/norm.cpp.
struct BatchNormLaunch {
  enum Pass : int32_t { stats_pass, params_pass, affine_pass, grad_sums_pass, grad_input_pass };
  Pass pass;
  Type type;  // x's, y's, dy's and dx's: float32, float64, float16 or bfloat16
  int64_t N, C, S;
  double eps;
  int32_t training;
  const char* x;
  char* y;
  const char* grad_out;
  char* grad_input;
  const char* weight;  // null: 1
  const char* bias;    // null: 0
  const double* mean;  // forward: the statistics to normalise with
  const double* var;
  double* batch_mean;  // stats: the batch's
  double* batch_var;
  char* save_mean;  // written by params, read by the backward
  char* save_invstd;
  char* grad_weight;  // null: not computed
  char* grad_bias;
  char* scratch;  // 2 C values of the op math type, between passes
  uint32_t blocks, threads;
};

/// Queues the kernel on `stream` (a cudaStream_t); returns the launch's cudaError_t.
int launch_batch_norm(const BatchNormLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
