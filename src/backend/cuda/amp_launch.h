// What the host side (amp.cpp) hands GradScaler's CUDA kernel (amp.cu): one contiguous floating
// tensor to check for inf/NaN and unscale in place, and the device flag a non-finite value sets.
// A plain struct, so nvcc compiles no ember header.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

struct UnscaleLaunch {
  Type type;  // float32, float64, float16 or bfloat16
  int64_t numel;
  uint32_t blocks, threads;  // a grid-stride loop over the elements
  char* data;
  float inv_scale;     // 1: check only, write nothing
  int32_t* found_inf;  // set to 1 (by any number of threads) when a value is inf or NaN
};

/// Queues the kernel on `stream` (a cudaStream_t); returns the launch's cudaError_t.
int launch_unscale(const UnscaleLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
