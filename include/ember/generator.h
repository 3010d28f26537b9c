// Random number generation: a seedable Generator (Mersenne Twister, as PyTorch's CPU generator)
// and the global default one that manual_seed() resets.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
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
  /// Serialised state (restores draws exactly with set_state): the 5056 bytes of PyTorch's
  /// torch.get_rng_state() on x86-64, so states move between ember and PyTorch.
  std::vector<uint8_t> get_state() const;
  void set_state(const std::vector<uint8_t>& state);

  struct State;
  State& state() { return *state_; }

 private:
  std::unique_ptr<State> state_;
};

// ── for ops that draw many numbers ──────────────────────────────────────
// The engine state, as PyTorch's mt19937 keeps it (so get_state can write PyTorch's layout).
// An op locks `mutex` once, then calls draw32/draw64 without further locking (PyTorch's
// Note [Acquire lock when using random generators]); the public random() locks per call.
struct Generator::State {
  static constexpr int kN = 624;

  mutable std::mutex mutex;
  uint64_t seed = 0;
  int32_t left = 1;   // draws until the next twist; 1 right after seeding
  uint32_t next = 0;  // index in mt of the next word to temper
  std::array<uint32_t, kN> mt{};
  // The second Box–Muller value of the scalar normal path, kept for the next draw.
  std::optional<float> next_float_normal;
  std::optional<double> next_double_normal;

  State() = default;
  State(const State& other) { copy_from(other); }
  State& operator=(const State& other) {
    if (this != &other) copy_from(other);
    return *this;
  }

  /// Reinitialises the twister from the low 32 bits of `s` and clears the normal caches.
  void reseed(uint64_t s);
  /// The next 32 bits (caller holds `mutex`).
  uint32_t draw32() {
    if (--left == 0) twist();
    uint32_t y = mt[next++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
  }
  /// Two draws, the first in the high half (caller holds `mutex`).
  uint64_t draw64() {
    const uint64_t hi = draw32();
    return (hi << 32) | draw32();
  }

 private:
  void twist();
  void copy_from(const State& other);
};

/// The process-wide default generator used when none is passed.
Generator& default_generator();
/// Reseeds the default generator.
void manual_seed(uint64_t seed);

}  // namespace ember
