// Random number generation: a seedable Generator (Mersenne Twister, as PyTorch's CPU generator)
// and the global default one that manual_seed() resets.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace ember {

class Generator {
 public:
  /// A generator seeded with `seed` (PyTorch's default seed is 67280421310721).
  explicit Generator(uint64_t seed = 67280421310721ULL);
  Generator(const Generator&);
  Generator& operator=(const Generator&);
  Generator(Generator&&) noexcept;
  Generator& operator=(Generator&&) noexcept;
  ~Generator();

  void manual_seed(uint64_t seed);
  uint64_t initial_seed() const;
  /// 32 random bits.
  uint32_t random();
  /// 64 random bits (two draws, as PyTorch's random64).
  uint64_t random64();
  /// Serialised state (restores draws exactly with set_state).
  std::vector<uint8_t> get_state() const;
  void set_state(const std::vector<uint8_t>& state);

  struct State;
  State& state() { return *state_; }

 private:
  std::unique_ptr<State> state_;
};

/// The process-wide default generator used when none is passed.
Generator& default_generator();
/// Reseeds the default generator.
void manual_seed(uint64_t seed);

}  // namespace ember
