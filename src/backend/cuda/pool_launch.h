// What the host side (pool.cpp) hands the CUDA pooling kernels (pool.cu): contiguous planes
// (P, H, W) of one floating dtype and their (P, Ho, Wo) windows, as backend/pool_kernels.h lays
// them out. max_pool's backward is a scatter_add (gather_launch.h). A plain struct, so nvcc
// compiles no ember header.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

/// out = the window max of each output position, a thread per output, by PyTorch's rule (the
/// CPU's): from -inf with the window's first in-bounds position as the index, take a value when
/// it is greater or NaN (so the last NaN wins); indices (flat in H W) when not null.
struct MaxPoolLaunch {
  Type type;         // float32, float64, float16 or bfloat16
  int32_t adaptive;  // adaptive_max_pool2d's windows (AvgPoolLaunch's), no kernel/stride/...
  int64_t P, H, W, Ho, Wo;
  int64_t kernel[2], stride[2], padding[2], dilation[2];  // (H, W)
  const char* in;
  char* out;
  int64_t* indices;
  uint32_t blocks, threads;  // a grid-stride loop over the P Ho Wo outputs
};

/// avg_pool2d and adaptive_avg_pool2d, forward (a thread per output: its window's sum in row
/// order, then divided) and backward (a thread per input element: the shares of the outputs
/// whose windows hold it, added in output order and rounded after each add), as the CPU's
/// kernels, so the results are their bits.
struct AvgPoolLaunch {
  enum Pass : int32_t { forward_pass, backward_pass } pass;
  Type type;         // float32, float64, float16 or bfloat16
  int32_t adaptive;  // windows [floor(i H / Ho), ceil((i + 1) H / Ho)), computed in float
  int32_t count_include_pad;
  int64_t divisor;  // > 0: divisor_override
  int64_t P, H, W, Ho, Wo;
  int64_t kernel[2], stride[2], padding[2];
  const char* in;            // forward: the input planes; backward: grad (P, Ho, Wo)
  char* out;                 // forward: (P, Ho, Wo); backward: grad_input (P, H, W)
  uint32_t blocks, threads;  // a grid-stride loop over the outputs
};

/// Queue the kernel on `stream` (a cudaStream_t); return the launch's cudaError_t.
int launch_max_pool(const MaxPoolLaunch& launch, void* stream);
int launch_avg_pool(const AvgPoolLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
