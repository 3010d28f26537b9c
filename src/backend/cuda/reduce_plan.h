// The host half of the CUDA reductions, apart from the CUDA build so that every build compiles
// and tests it: a ReduceCall becomes a kernels::ReduceLaunch (the kept and the reduced index
// spaces with merged dims, the accumulator, how many blocks share one output). No device is
// touched; the partial buffer for split reductions is the caller's.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

#include "backend/cuda/copy_launch.h"
#include "backend/cuda/reduce_launch.h"
#include "backend/reduce_kernels.h"

namespace ember::cuda {

/// The most threads of a reduction block (block_threads picks fewer for short lines).
inline constexpr uint32_t kReduceThreads = 256;
/// Blocks a reduction aims for when it has few outputs (an H200 has 132 SMs): a sum over 16M
/// elements into one value splits into this many chunks, combined by a second kernel.
inline constexpr int64_t kReduceTargetBlocks = 1024;
/// The fewest elements one split's block reduces (8 per thread), so small reductions do not
/// split.
inline constexpr int64_t kReduceMinChunk = 8 * kReduceThreads;

/// Threads of a block that combines `n` values: n rounded up to a whole warp (32), at most
/// `most`, so short lines (a softmax over 10 classes, a row sum) do not leave warps idle.
uint32_t block_threads(int64_t n, uint32_t most);

/// The launch of `op` over `call` (its input in float32/float64/float16/bfloat16, the output of
/// the same dtype): `[op] the cuda backend has no <dtype> kernel yet` otherwise.
kernels::ReduceLaunch plan_reduce_launch(kernels::ReduceOp op, const backend::ReduceCall& call);

/// aminmax over `dims` as two launches, amin into lo and amax into hi (lo and hi like `out`
/// above): the same bodies as amin and amax, reading the input twice where PyTorch's CUDA
/// aminmax reads it once.
std::pair<kernels::ReduceLaunch, kernels::ReduceLaunch> plan_aminmax_launches(
    const char* op, const Tensor& lo, const Tensor& hi, const Tensor& in, IntArrayRef dims);

/// var/std (and their _mean variants) in two passes: `mean` (each output's mean, unrounded in
/// the accumulator type, into `center`), then `var` (the squared distances from it, summed and
/// divided by max(0, n - correction), the root for std), then `mean_out` (center converted to
/// call.mean's dtype) when call.mean is defined. PyTorch's CUDA kernel is one Welford pass: the
/// results differ by rounding.
struct MomentsWork {
  Tensor center;  // float32 (float64 for float64 input), the outputs' shape, on in's device
  kernels::ReduceLaunch mean, var;
  std::optional<kernels::CopyLaunch> mean_out;
};
MomentsWork plan_moments(const backend::MomentsCall& call);

/// Bytes of the partial buffer a split launch needs (0 when it has one split).
int64_t reduce_partial_bytes(const kernels::ReduceLaunch& launch);

}  // namespace ember::cuda
