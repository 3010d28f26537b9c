// What the host hands the CUDA fused dropout kernels (dropout.cu): PyTorch 1.13's native_dropout
// on CUDA (ATen/native/cuda/Dropout.cu), forward and backward. Plain structs, so nvcc compiles
// no ember header.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

/// y = x * mask * scale, mask = (u < keep) with u curand_uniform4's floats drawn as
/// Note [Philox streams] (random_launch.h) says, scale = 1 / keep in x's compute type. Operands:
/// 0 y, 1 mask (bool), 2 x, one shape. `vec` is how PyTorch's kernel walks: 4 or 2 when every
/// operand is dense in one order (thread i takes vec neighbours per draw, elements vec * i + j
/// then every grid * vec further), else 1 (elements i + j * grid per draw, as the random fills).
struct DropoutLaunch : Strided {
  Type type;  // float32, float64, float16 or bfloat16
  int32_t vec;
  double keep;  // 1 - p, in (0, 1]
  uint64_t seed, offset;
};

/// dx = mask * grad * scale (native_dropout_backward). Operands: 0 dx, 1 grad, 2 mask (bool).
struct DropoutBackwardLaunch : Strided {
  Type type;
  double scale;
};

/// Queue the kernel on `stream` (a cudaStream_t); return the launch's cudaError_t.
int launch_dropout(const DropoutLaunch& launch, void* stream);
int launch_dropout_backward(const DropoutBackwardLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
