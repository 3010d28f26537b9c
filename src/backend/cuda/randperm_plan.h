// The host half of the CUDA randperm (Note [CUDA randperm] in randperm_launch.h), apart from the
// CUDA build so that every build compiles and tests it: the key width, the buffers and the
// launches of each step, in the order they run. No device is touched.
#pragma once

#include <cstdint>
#include <optional>

#include "backend/cuda/copy_launch.h"
#include "backend/cuda/philox_generator.h"
#include "backend/cuda/random_launch.h"
#include "backend/cuda/randperm_launch.h"
#include "ember/tensor.h"

namespace ember::cuda {

/// PyTorch 1.13's sorted key bits for n > 0 elements: min(64, ceil(log2(n - (6 n^2 + 1) /
/// (12 log 0.9)))); 32 or fewer take int32 keys.
int randperm_key_bits(int64_t n);

/// The buffers and launches of one randperm, to run in this order: fill_keys (random.cu),
/// fill_iota, sort, islands, then copy_out when there is one (perm to the result's dtype).
struct RandpermWork {
  int bits;
  Tensor keys, sorted_keys, iota, perm;  // on the result's device; perm is the result if int64
  kernels::RandomLaunch fill_keys;
  kernels::RandpermLaunch fill_iota;
  kernels::RandpermSort sort;  // scratch left to the device's caller
  kernels::RandpermLaunch islands;
  std::optional<kernels::CopyLaunch> copy_out;
};

/// The work of filling `out` (1-D, contiguous, 1 to 2^31 - 1 elements of a dtype the cuda
/// copies take) with a random permutation of 0..n-1, drawing the keys and then the islands'
/// words from `gen` (its offset moves past both) with random_'s grid of at most `max_blocks`.
/// `[randperm] ...` naming what was expected otherwise.
RandpermWork plan_randperm(const Tensor& out, PhiloxGenerator& gen, uint32_t max_blocks);

}  // namespace ember::cuda
