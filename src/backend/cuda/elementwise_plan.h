// The host half of a CUDA elementwise launch, apart from the CUDA build so that every build
// compiles and tests it: an ElementwiseCall becomes a kernels::Launch (layout planned by the
// CPU's strided-loop planner, byte strides, kernel type, alpha, grid size). No device is touched.
#pragma once

#include <array>

#include "backend/backend.h"
#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda {

/// Threads per block of the elementwise kernels, and the most blocks one launch asks for (the
/// grid-stride loop covers the rest: 65536 x 256 threads fill any current device many times).
inline constexpr uint32_t kElementwiseThreads = 256;
inline constexpr uint32_t kElementwiseMaxBlocks = 65536;

/// The grid of a grid-stride loop over n elements: a thread per element, at least one block and
/// at most kElementwiseMaxBlocks.
inline uint32_t grid_blocks(int64_t n, uint32_t threads = kElementwiseThreads) {
  const int64_t blocks = (n + threads - 1) / threads;
  return uint32_t(blocks < 1 ? 1 : blocks < kElementwiseMaxBlocks ? blocks : kElementwiseMaxBlocks);
}

/// The strided layout of N tensors (operand 0 the output; each with its own dtype's byte
/// strides) over the output's shape, with the grid for `threads` per block: the CPU loop
/// planner's merged dims. `[op] ... at most 12 dimensions ...` when they do not merge to that
/// many. Every strided launch (elementwise, copy, fill) is planned here.
template <int N>
kernels::Strided plan_strided(const char* op, const std::array<const Tensor*, N>& tensors,
                              uint32_t threads = kElementwiseThreads);

/// The same over raw operands: base addresses and byte strides (which may be negative: flip
/// reads its input backwards) over `shape`. Instantiated for N = 2.
template <int N>
kernels::Strided plan_strided(const char* op, IntArrayRef shape, const std::array<char*, N>& base,
                              const std::array<IntArrayRef, N>& byte_strides,
                              uint32_t threads = kElementwiseThreads);

/// The launch of kernel `op` over `call`'s output and inputs, its arguments converted as the
/// CPU kernel converts them (elementwise_launch.h). Throws `[op] the cuda backend has no <dtype>
/// kernel ...` for a compute dtype the kernel does not take (the table in elementwise_body.cuh),
/// `[op] ... at most 12 dimensions ...` for a layout that does not merge to that many, and the
/// CPU kernel's errors for its arguments (a missing scalar, an integer bound out of range).
kernels::Launch plan_elementwise_launch(backend::ElementwiseKernel op,
                                        const backend::ElementwiseCall& call);

/// Whether the cuda backend has kernel `op` (the table in elementwise_body.cuh), for the
/// installer (elementwise.cpp) and the tests.
bool has_elementwise_kernel(backend::ElementwiseKernel op);

}  // namespace ember::cuda
