// What the host side (index.cpp) hands the CUDA advanced indexing (index.cu): index() and
// index_put_ (with accumulate) in two launches, as the CPU kernels' two steps (Note [Index walk]
// in backend/cpu/index.cpp). A plain struct, so nvcc compiles no ember header.
//
// Note [CUDA advanced indexing]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
//  1. The offsets: for each of the prod(S) positions j of the broadcast index shape, the element
//     offset sum_k index_k[j] * stride_k of src's indexed dims, negative entries wrapped; an entry
//     out of [-size_k, size_k) is recorded in its index's own record (`bad` holds one per index,
//     so the host names the dimension) and the host raises the CPU's error before step 2.
//  2. The walk over the result shape (B..., J, A...) with J the flattened index shape: the
//     gather family's kernel (gather_launch.h) with src's J stride 0 and the offsets as its
//     entries, one element each: a gather for index(), a scatter for index_put_, an atomic
//     scatter_add for index_put_ with accumulate (floating types, as scatter_add).
// What differs from PyTorch's CUDA kernels: accumulate adds repeated positions with atomics, in
// no fixed order on the device (PyTorch 1.13 sorts the indices and adds in a fixed order), and
// which of several bad entries of one index the error names.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

/// Step 1 over `count` positions and m <= kMaxDims indices (contiguous int64, count entries
/// each).
struct IndexOffsetsLaunch {
  int64_t count;
  int32_t m;
  const int64_t* indices[kMaxDims];
  int64_t sizes[kMaxDims];    // src's size along indexed dim k
  int64_t strides[kMaxDims];  // and its stride there, in elements
  int64_t* offsets;           // count int64
  int64_t* bad;               // m records of two int64, zeroed
  uint32_t blocks, threads;   // a grid-stride loop over the positions
};

/// Queues the kernel on `stream` (a cudaStream_t); returns the launch's cudaError_t.
int launch_index_offsets(const IndexOffsetsLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
