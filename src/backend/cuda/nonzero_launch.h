// What the host side (nonzero.cpp) hands the CUDA nonzero (nonzero.cu): an order-preserving
// compaction in three launches, whose last one writes coordinates (nonzero), the selected
// elements (masked_select) or the source's elements into the selected places (masked_scatter).
// A plain struct, so nvcc compiles no ember header.
//
// Note [CUDA nonzero]
// ~~~~~~~~~~~~~~~~~~~
// Each of the grid's G threads owns one contiguous run of `per_thread` elements (the last runs
// may be short or empty): (1) every thread counts its run's nonzero elements into counts[g];
// (2) the scan kernel (scan.cu) turns the counts into their inclusive sums, `ends`; the host
// reads ends[G - 1], the total (a sync, as PyTorch's nonzero has), and allocates the (total,
// ndim) result; (3) every thread writes its run's coordinates from row ends[g] - counts[g] on.
// Runs are in element order and each thread keeps its own order, so the rows are in row-major
// order, as the CPU's, and the result is the same on the device and in the emulation.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

struct NonzeroLaunch {
  // write: x's nonzero coordinates; select: values[i] for x's nonzero i, in order, into selected;
  // scatter: values[i] = the next of `selected` for x's nonzero i.
  enum class Phase : int32_t { count, write, select, scatter };
  Phase phase;
  Type type;  // x's storage type: nonzero is x != 0 there (NaN is nonzero, -0.0 is not)
  int32_t ndim;
  int64_t n;
  int64_t sizes[kMaxDims];  // x's, contiguous
  const char* x;
  int64_t per_thread;   // elements of each thread's run
  int64_t* counts;      // G = blocks * threads: the count phase writes them, the write reads
  const int64_t* ends;  // write: the inclusive sums of counts
  int64_t* out;         // write: (total, ndim) int64, row-major
  char* values;         // select, scatter: contiguous, x's shape, `item` bytes an element
  char* selected;       // select: total elements out; scatter: the source's first total, in
  int64_t item;         // the element size of values and selected: 1, 2, 4 or 8
  uint32_t blocks, threads;
};

/// Queues the kernel on `stream` (a cudaStream_t); returns the launch's cudaError_t.
int launch_nonzero(const NonzeroLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
