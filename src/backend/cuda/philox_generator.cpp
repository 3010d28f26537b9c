// See philox_generator.h.
#include "backend/cuda/philox_generator.h"

#include <array>

#include "core/manual_seed_hooks.h"
#include "ember/error.h"

namespace ember::cuda {

void PhiloxGenerator::manual_seed(uint64_t seed) {
  std::lock_guard lock(mutex_);
  seed_ = seed;
  offset_ = 0;
}

uint64_t PhiloxGenerator::initial_seed() const {
  std::lock_guard lock(mutex_);
  return seed_;
}

uint64_t PhiloxGenerator::offset() const {
  std::lock_guard lock(mutex_);
  return offset_;
}

PhiloxInputs PhiloxGenerator::philox_inputs(uint64_t increment) {
  std::lock_guard lock(mutex_);
  const PhiloxInputs inputs{seed_, offset_};
  offset_ += (increment + 3) / 4 * 4;
  return inputs;
}

namespace {
std::array<PhiloxGenerator, kMaxPhiloxDevices>& generators() {
  static std::array<PhiloxGenerator, kMaxPhiloxDevices> all;  // made on first use, thread-safely
  return all;
}
}  // namespace

PhiloxGenerator& default_philox_generator(int index, const char* op) {
  EMBER_CHECK(index >= 0 && index < kMaxPhiloxDevices, op, "no CUDA generator for device index ",
              index, " (expected 0 to ", kMaxPhiloxDevices - 1, ")");
  return generators()[size_t(index)];
}

void manual_seed_all(uint64_t seed) {
  for (PhiloxGenerator& g : generators()) g.manual_seed(seed);
}

namespace {
// ember::manual_seed seeds these generators too (core/manual_seed_hooks.h).
const bool seeded_with_manual_seed = ember::detail::add_manual_seed_hook(&manual_seed_all);
}  // namespace

}  // namespace ember::cuda
