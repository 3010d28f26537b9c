// The host half of the CUDA random fills, apart from the CUDA build so that every build compiles
// and tests it: a uniform_, normal_, bernoulli_ or random_ call becomes a kernels::RandomLaunch
// with PyTorch's grid and the generator's Philox inputs (Note [Philox streams] in
// random_launch.h). No device is touched.
#pragma once

#include <cstdint>

#include "backend/cuda/philox_generator.h"
#include "backend/cuda/random_launch.h"
#include "ember/tensor.h"

namespace ember::cuda {

/// What to draw: a and b as RandomLaunch reads them (uniform: from, to; normal: mean, std;
/// bernoulli: p in a); random32 with range and low (the plan widens it to random64 where
/// PyTorch does).
struct RandomFill {
  kernels::Distribution dist;
  double a = 0, b = 0;
  uint64_t range = 0;
  int64_t low = 0;
};

/// PyTorch's grid cap for its distribution kernels on a device: SMs * (max threads per SM / 256).
uint32_t random_max_blocks(int sm_count, int max_threads_per_sm);

/// Whether t is one of the floating storage types (float32, float64, float16, bfloat16).
constexpr bool is_floating_type(kernels::Type t) {
  return t == kernels::Type::float32 || t == kernels::Type::float64 ||
         t == kernels::Type::float16 || t == kernels::Type::bfloat16;
}

/// PyTorch's calc_execution_policy for numel > 0 elements: a thread per element in blocks of
/// kRandomThreads up to max_blocks, and the generator's inputs for the launch, its offset moved by
/// 4 words per draw of a thread (counted as if each draw served 4 elements, also where it serves
/// 2: PyTorch's increment, kept so that later launches start where PyTorch's do).
struct RandomGrid {
  uint32_t blocks;
  PhiloxInputs inputs;
};
RandomGrid random_grid(int64_t numel, uint32_t max_blocks, PhiloxGenerator& gen);

/// The launch filling t in place (any layout whose elements do not overlap) with `fill`, drawing
/// from `gen`, whose offset moves past the launch's words (not for an empty t); at most
/// `max_blocks` blocks. `[op] the cuda backend has no <dtype> kernel yet` for int8/int16/uint8,
/// `[op] expected a floating-point dtype` for uniform/normal of another, `[op] unsupported
/// operation: more than one element ...` for a t with a broadcast (stride 0) dim.
kernels::RandomLaunch plan_random_launch(const char* op, const Tensor& t, const RandomFill& fill,
                                         PhiloxGenerator& gen, uint32_t max_blocks);

}  // namespace ember::cuda
