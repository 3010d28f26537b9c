// The host half of the CUDA nonzero (Note [CUDA nonzero] in nonzero_launch.h), apart from the
// CUDA build so that every build compiles and tests it: the runs, the counts and their scan, and
// the result once the total is known. No device is touched.
#pragma once

#include <cstdint>

#include "backend/cuda/nonzero_launch.h"
#include "backend/cuda/scan_launch.h"
#include "ember/tensor.h"

namespace ember::cuda {

/// Elements each thread's run aims at, and the most blocks of 256 threads a nonzero takes.
inline constexpr int64_t kNonzeroPerThread = 16;
inline constexpr uint32_t kNonzeroMaxBlocks = 256;

/// The buffers and launches of one nonzero: run `count`, `scan`, read ends[G - 1] back, then
/// nonzero_result and `write`.
struct NonzeroWork {
  Tensor counts, ends;  // G int64 on x's device
  kernels::NonzeroLaunch count, write;
  kernels::ScanLaunch scan;
};

/// x: contiguous, 1 or more elements, at most kMaxDims dims (`[nonzero] ...` otherwise).
NonzeroWork plan_nonzero(const Tensor& x);

/// The (total, ndim) int64 result on x's device, `w.write` pointed at it.
Tensor nonzero_result(NonzeroWork& w, int64_t total, Device device);

}  // namespace ember::cuda
