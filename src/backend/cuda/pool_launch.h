// What the host side (pool.cpp) hands the CUDA max pooling kernel (pool.cu): contiguous planes
// (P, H, W) of one floating dtype and their (P, Ho, Wo) window maxima, as backend/pool_kernels.h
// lays them out. max_pool's backward is a scatter_add (gather_launch.h). A plain struct, so nvcc
// compiles no ember header.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

/// out = the window max of each output position, a thread per output, by PyTorch's rule (the
/// CPU's): from -inf with the window's first in-bounds position as the index, take a value when
/// it is greater or NaN (so the last NaN wins); indices (flat in H W) when not null.
struct MaxPoolLaunch {
  Type type;  // float32, float64, float16 or bfloat16
  int64_t P, H, W, Ho, Wo;
  int64_t kernel[2], stride[2], padding[2], dilation[2];  // (H, W)
  const char* in;
  char* out;
  int64_t* indices;
  uint32_t blocks, threads;  // a grid-stride loop over the P Ho Wo outputs
};

/// Queues the kernel on `stream` (a cudaStream_t); returns the launch's cudaError_t.
int launch_max_pool(const MaxPoolLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
