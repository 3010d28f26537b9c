// What the host side (gather.cpp) hands the CUDA gather-family kernels (gather.cu): gather,
// scatter and scatter_add along a dim, index_select and the embedding lookup, and the index check
// of index_select's front end. Plain structs, so nvcc compiles no ember header.
//
// The kernels check every index entry, as the CPU's do (the front end never reads element
// memory): an entry out of range is recorded in `bad`, two int64 on the device ({0, 0} until an
// entry is out of range, then {1, that entry}, the first recorder winning), its element is
// skipped, and the host reads the record back and raises the CPU's error.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

/// scatter_prod/amax/amin are scatter_reduce's other reductions (sum and mean are scatter_add's;
/// the host fills the identity for include_self=false and divides by the counts for mean).
enum class GatherOp : int32_t {
  gather,
  scatter,
  scatter_add,
  scatter_prod,
  scatter_amax,
  scatter_amin
};

/// gather/scatter/scatter_add: a grid-stride walk over the index's shape through the strided
/// layout of three operands (elementwise_launch.h): 0 the written one (gather's out, scatter's
/// self), 1 the read one, 2 the index (int64). The operand the index addresses (gather: 1,
/// scatter: 0) is laid out with stride 0 along dim; the kernel adds entry * dim_stride.
struct GatherLaunch : Strided {
  GatherOp op;
  Type type;  // the reductions' element type (floating); gather and scatter move itemsize bytes
  int32_t itemsize;    // bytes per element
  int64_t size;        // the addressed operand's size along dim: entries lie in [0, size)
  int64_t dim_stride;  // its stride along dim, in bytes
  int64_t* bad;
  // scatter_add adds src * alpha (index_add_'s; 1 for scatter_add), rounded to the element type
  // (as PyTorch's CUDA index_add); as embedding_backward's, entries equal to `skip` (padding_idx;
  // -1: none) add nothing, and with `counts` (each entry's count, from the check) src is divided
  // by it instead.
  double alpha;
  int64_t skip;
  const int64_t* counts;
};

/// index_select, the embedding lookup and take: out (outer, n, inner) = src (outer, size, inner)
/// at index[j] in the middle dim; src, out and index (n int64) contiguous. With `wrap` (take's
/// flat indices) entries in [-size, 0) count from the end.
struct SelectLaunch {
  int32_t itemsize;  // bytes per element: the kernel moves bytes, so every dtype has one
  int32_t wrap;
  int64_t outer, size, inner, n;
  int64_t numel;  // outer * n * inner
  const char* src;
  char* out;
  const int64_t* index;
  int64_t* bad;
  uint32_t blocks, threads;  // a grid-stride loop over out's elements
};

/// Every entry of a contiguous int64 index in [-size, size), negative ones wrapped in place, when
/// `wrap`; else in [0, size). With `counts` (size zeroed int64) each entry in range is counted.
struct CheckIndexLaunch {
  int64_t numel;
  int64_t* index;
  int64_t size;
  int32_t wrap;
  int64_t* bad;
  int64_t* counts;
  uint32_t blocks, threads;  // a grid-stride loop over the entries
};

/// Queue the kernel on `stream` (a cudaStream_t); return the launch's cudaError_t.
int launch_gather(const GatherLaunch& launch, void* stream);
int launch_select(const SelectLaunch& launch, void* stream);
int launch_check_index(const CheckIndexLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
