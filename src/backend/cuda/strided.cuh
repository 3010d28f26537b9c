// The device half of kernels::Strided (elementwise_launch.h): element i's byte offset in each
// operand, for every grid-stride kernel over a strided layout (elementwise.cu, copy.cu). A single
// merged dimension (contiguous or broadcast operands: the common case) indexes directly;
// otherwise the offsets come from i's coordinates, innermost dimension first. The host compiler
// sees it too, so the CPU tests walk a planned launch with the very code the kernels run.
#pragma once

#include <cstdint>

#include "backend/cuda/block.cuh"
#include "backend/cuda/elementwise_launch.h"
#include "backend/cuda/host_device.cuh"

namespace ember::cuda::kernels {

/// The byte offset of element i of a row-major walk over `shape` (ndim dims) with `strides`.
EMBER_HOST_DEVICE inline int64_t offset_of(int ndim, const int64_t* shape, const int64_t* strides,
                                           int64_t i) {
  int64_t off = 0;
  for (int d = ndim - 1; d >= 0; --d) {
    off += (i % shape[d]) * strides[d];
    i /= shape[d];
  }
  return off;
}

template <int N>
EMBER_HOST_DEVICE inline void strided_offsets(const Strided& l, int64_t i, int64_t (&off)[N]) {
  if (l.ndim == 1) {
    for (int k = 0; k < N; ++k) off[k] = i * l.strides[k][0];
    return;
  }
  for (int k = 0; k < N; ++k) off[k] = 0;
  int64_t rest = i;
  for (int d = l.ndim - 1; d >= 0; --d) {
    const int64_t coord = rest % l.shape[d];
    rest /= l.shape[d];
    for (int k = 0; k < N; ++k) off[k] += coord * l.strides[k][d];
  }
}

/// The grid-stride loop over a strided layout (grid_stride): f(at) for each element, at[k] its
/// address in operand k (k < N), for every kernel that walks one (copy, fill, map, gather).
template <int N, class Block, class F>
EMBER_HOST_DEVICE void each_strided(const Block& b, const Strided& l, F&& f) {
  grid_stride(b, l.numel, [&](int64_t i) {
    int64_t off[N];
    strided_offsets(l, i, off);
    char* at[N];
    for (int k = 0; k < N; ++k) at[k] = l.base[k] + off[k];
    f(at);
  });
}

}  // namespace ember::cuda::kernels
