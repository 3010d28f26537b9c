// The host half of the CUDA fused dropout kernels, apart from the CUDA build so that every build
// compiles and tests it: native_dropout's forward and backward become kernels::DropoutLaunch /
// DropoutBackwardLaunch, with PyTorch's grid, walk and Philox offsets. No device is touched.
#pragma once

#include <cstdint>

#include "backend/cuda/dropout_launch.h"
#include "backend/cuda/philox_generator.h"
#include "ember/tensor.h"

namespace ember::cuda {

/// y = x * mask / (1 - p), mask (bool) = the kept elements, drawing from `gen` (its offset moves
/// past the launch's words unless x is empty), at most `max_blocks` blocks (random_max_blocks).
/// y and mask are x's shape, x floating. The walk is PyTorch's: vectorised (4 or 2 elements per
/// draw) when the three are dense in one order and x's address and numel allow it, else one
/// element per word in the planned order. `[op] ...` for p outside [0, 1) (p == 1 zeroes without
/// drawing, the front end's), other dtypes or shapes.
kernels::DropoutLaunch plan_dropout_launch(const char* op, const Tensor& y, const Tensor& mask,
                                           const Tensor& x, double p, PhiloxGenerator& gen,
                                           uint32_t max_blocks);

/// dx = mask * grad * scale (scale = 1 / (1 - p)): dx and grad floating of one dtype, mask bool,
/// one shape (grad may be expanded).
kernels::DropoutBackwardLaunch plan_dropout_backward_launch(const char* op, const Tensor& dx,
                                                            const Tensor& grad, const Tensor& mask,
                                                            double scale);

}  // namespace ember::cuda
