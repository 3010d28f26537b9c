// The host half of the CUDA nonzero (Note [CUDA nonzero] in nonzero_launch.h) and of
// masked_select/masked_scatter, its compactions of values, apart from the
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

/// masked_select's last launch, once the mask's work (plan_nonzero(mask)) has counted `total`
/// ones: self (contiguous, mask's shape) at the ones, in order, into the returned 1-d tensor.
kernels::NonzeroLaunch plan_masked_select(const NonzeroWork& w, const Tensor& self, int64_t total,
                                          Tensor& out);

/// masked_scatter's last launch: self (contiguous, mask's shape) at the mask's `total` ones =
/// source's (contiguous) first `total` elements, in order. `[masked_scatter_] Number of elements
/// of source (n) < number of ones in mask (total)` when source is short.
kernels::NonzeroLaunch plan_masked_scatter(const NonzeroWork& w, const Tensor& self,
                                           const Tensor& source, int64_t total);

}  // namespace ember::cuda
