// The host half of the CUDA advanced indexing (Note [CUDA advanced indexing] in index_launch.h),
// apart from the CUDA build so that every build compiles and tests it: the offsets launch and the
// gather-family walk over the result shape. No device is touched.
#pragma once

#include "backend/cuda/gather_launch.h"
#include "backend/cuda/index_launch.h"
#include "backend/index_kernels.h"

namespace ember::cuda {

/// The buffers and launches of one index() or index_put_: run `offsets`, read `record` back
/// (raise_bad_index_entry), then `walk` unless it is empty.
struct IndexWork {
  Tensor offsets, record, walk_record;  // on src's device; the records zeroed
  Tensor plain;  // the values walked: `plain`, or a contiguous copy where S's dims do not flatten
  kernels::IndexOffsetsLaunch offsets_launch;
  kernels::GatherLaunch walk;
};

/// `op` gather: out (contiguous, the result's shape) = src at the indices. scatter: src at the
/// indices = `plain` (src's dtype, the result's shape, any strides); scatter_add: += (floating
/// dtypes: `[index_put_] the cuda backend has no <dtype> kernel yet` otherwise).
IndexWork plan_index(const char* name, kernels::GatherOp op, const Tensor& plain,
                     const backend::AdvancedIndex& at);

/// `[index] index i is out of bounds for dimension k with size n` (the CPU kernel's words) for
/// the first index whose record (read back to the host: 2 int64 per index) holds an entry.
void raise_bad_index_entry(const int64_t* record, const backend::AdvancedIndex& at);

}  // namespace ember::cuda
