// What the host side (random.cpp) hands the CUDA random fills (random.cu): uniform_, normal_,
// bernoulli_, exponential_ and random_ over any layout, drawing from Philox (philox.cuh) at the
// generator's (seed, offset). A plain struct, so nvcc compiles no ember header.
//
// Note [Philox streams]
// ~~~~~~~~~~~~~~~~~~~~~
// The fills are PyTorch 1.13's distribution kernels (ATen/native/cuda/DistributionTemplates.h):
// thread i of the grid (block * 256 + thread) starts curand's Philox stream at (seed, subsequence
// i, offset) and, in a grid-stride loop of `unroll` elements per draw, takes element
// i + k * threads_in_grid * unroll + j * threads_in_grid from word group j of its k-th draw. The
// element index is TensorIterator's: memory order for a lone output (the planned layout's
// row-major walk). The generator's offset then advances by 4 * the draws per thread
// (philox_engine_inputs' increment, rounded up to a multiple of 4).
//
// What matches PyTorch's CUDA numbers bit for bit, given the same seed, offset and grid:
//  * the Philox words (checked against Random123's known answers), hence random_ and the
//    integers' and bool's bernoulli_, and every mask;
//  * uniform_ and bernoulli_ of every floating dtype (integer words, fmas and roundings only);
//  * exponential_ up to the device's log (the emulation runs libm's: a few ulp, as normal_);
//  * normal_ on the device up to the device math library: the float path is curand's
//    (logf, __sincosf), the double path sincospi. The CPU emulation runs curand's host path
//    (libm's logf/sinf/cosf), which agrees within a few ulp, so the tests compare normals with a
//    tolerance and everything else exactly.
// What depends on the launch: the grid. PyTorch takes min(ceil(n / 256), SMs * (max threads per
// SM / 256)) blocks of 256 threads from the current device's properties, so a tensor's stream
// differs between GPU models with different SM counts (132 SMs on an H100 or H200: 1056 blocks).
// ember does the same (random.cpp reads the device's properties; the plan takes that cap), so on
// one GPU model ember's streams are PyTorch's. Two things PyTorch does that ember does not: a
// tensor of 2^31 bytes or more is split into 32-bit-indexable pieces, each drawing at its own
// offset (ember launches once, with 64-bit indices), and CUDA graph capture's offset bookkeeping.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

/// PyTorch's distribution kernels' block size; the cap on blocks comes from the device.
inline constexpr uint32_t kRandomThreads = 256;

/// Which fill, and what its draws are (the unroll is the elements one draw of 4 words serves).
enum class Distribution : int32_t {
  uniform,    // a + (b - a) u, u from curand_uniform4 (unroll 4) or uniform2_double (unroll 2)
  normal,     // a + b z, z from curand_normal4 (unroll 4) or normal2_double (unroll 2)
  bernoulli,  // u < a, u as for uniform (double for float64, float otherwise)
  exponential,  // -1/a log(u), u as for uniform, in float or double (log -eps/2 near u = 1)
  random32,   // low + word % range, one word per element (unroll 4)
  random64,   // low + (two words) % range: range >= 2^32 in int64, float64, float32, bfloat16
};

struct RandomLaunch : Strided {  // operand 0 the output; blocks/threads the grid
  Type type;
  Distribution dist;
  double a, b;            // uniform: from, to; normal: mean, std; bernoulli: p in a;
                          // exponential: lambda in a
  uint64_t range;         // random32/random64: the number of values
  int64_t low;            // random32/random64: the smallest value (random_'s from)
  uint64_t seed, offset;  // the generator's Philox inputs for this launch
};

/// Queues the kernel on `stream` (a cudaStream_t); returns the launch's cudaError_t.
int launch_random(const RandomLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
