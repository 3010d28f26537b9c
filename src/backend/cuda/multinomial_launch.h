// What the host side (multinomial.cpp) hands the CUDA multinomial sampling with replacement
// (multinomial.cu): PyTorch 1.13's generic path (MultinomialKernel.cu), which torch.multinomial
// takes for more than one sample with replacement (one sample, or none replaced, is the
// front end's exponential trick). A plain struct each, so nvcc compiles no ember header.
//
// Note [CUDA multinomial]
// ~~~~~~~~~~~~~~~~~~~~~~~
// (1) The probabilities are copied and each row divided by its sum, in the storage type
// (renormRowsL1: one block a row, the sum over the block's threads in the storage type); an
// entry < 0, inf or NaN, or a row summing to 0, is recorded for the host to raise the CPU's
// error. (2) The rows' prefix sums (the scan kernel). (3) Blocks of 128 threads in a grid of
// ceil(samples / 128) x min(rows, 65535), thread idx = (y * gx + x) * 128 + t starting curand's
// Philox at (seed, idx, offset): for each of its rows, for each of its samples, one
// curand_uniform4 whose first value, in the storage type, is looked up in the row's prefix sums
// by binary search (the first bucket not below it, moved back over zero-probability entries).
// The generator's offset advances by 4 draws per row a thread serves. PyTorch's scan adds in a
// different order, so an index can differ from PyTorch's where a uniform falls within rounding of
// a bucket's edge.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

inline constexpr uint32_t kMultinomialThreads = 128;

/// (1): rows x cols probabilities in `dist` (contiguous), renormalised in place.
struct RenormRowsLaunch {
  Type type;  // float32, float64, float16, bfloat16
  int64_t rows, cols;
  char* dist;
  int64_t* bad;  // the record: {1, row * 4 + 1 (an entry < 0), 2 (inf or NaN), 3 (sum 0)}
  uint32_t blocks, threads;
};

/// (3): `samples` indices a row into out ((rows, samples) int64).
struct MultinomialLaunch {
  Type type;
  int64_t rows, cols, samples;
  const char* prefix;  // the rows' prefix sums
  const char* dist;    // the renormalised rows
  int64_t* out;
  uint64_t seed, offset;
  uint32_t blocks_x, blocks_y;  // the grid launched as blocks_x * blocks_y blocks in a row
  uint32_t blocks, threads;
};

/// Queue the kernels on `stream` (a cudaStream_t); return the launch's cudaError_t.
int launch_renorm_rows(const RenormRowsLaunch& launch, void* stream);
int launch_multinomial(const MultinomialLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
