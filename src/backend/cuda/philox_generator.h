// The CUDA generators' state (PyTorch's CUDAGeneratorImpl without CUDA graphs): a seed and an
// offset into every Philox stream, one default generator per device. A launch takes the current
// (seed, offset) and moves the offset past the words its threads draw (Note [Philox streams] in
// random_launch.h). Host bookkeeping only, so every build compiles and tests it.
#pragma once

#include <cstdint>
#include <mutex>

namespace ember::cuda {

/// PyTorch's default seed, which its CUDA generators start from until seeded.
inline constexpr uint64_t kDefaultPhiloxSeed = 67280421310721ULL;

/// The (seed, offset) one launch draws at.
struct PhiloxInputs {
  uint64_t seed, offset;
};

class PhiloxGenerator {
 public:
  explicit PhiloxGenerator(uint64_t seed = kDefaultPhiloxSeed) : seed_(seed) {}

  /// Restarts the streams: `seed`, offset 0 (torch.cuda.manual_seed).
  void manual_seed(uint64_t seed);
  uint64_t initial_seed() const;
  uint64_t offset() const;
  /// The inputs of a launch whose threads each draw up to `increment` words; the offset moves on
  /// by `increment` rounded up to a multiple of 4 (PyTorch's philox_cuda_state).
  PhiloxInputs philox_inputs(uint64_t increment);

 private:
  mutable std::mutex mutex_;  // PyTorch's Note [Acquire lock when using random generators]
  uint64_t seed_;
  uint64_t offset_ = 0;
};

/// The most devices the default generators cover.
inline constexpr int kMaxPhiloxDevices = 64;

/// Device `index`'s default generator; `[op] ...` for an index outside [0, kMaxPhiloxDevices).
PhiloxGenerator& default_philox_generator(int index, const char* op);

/// Seeds every device's default generator (the CUDA half of ember::manual_seed, as
/// torch.manual_seed seeds CUDA too).
void manual_seed_all(uint64_t seed);

}  // namespace ember::cuda
