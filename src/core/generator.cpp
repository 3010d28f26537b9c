// Generator: the 32-bit Mersenne Twister (MT19937) that PyTorch's CPU generator uses, its
// seeding, its serialised state in torch.get_rng_state()'s byte layout, and the default generator.
#include "ember/generator.h"

#include <cstring>
#include <mutex>
#include <random>
#include <vector>

#include "core/manual_seed_hooks.h"
#include "ember/error.h"

namespace ember {
namespace {

constexpr int kM = 397;  // MT19937's middle offset
constexpr uint32_t kMatrixA = 0x9908b0dfu;
constexpr uint32_t kUpper = 0x80000000u, kLower = 0x7fffffffu;

// The recurrence step: the top bit of `u` and the low 31 bits of `v`, shifted and twisted.
inline uint32_t twist_word(uint32_t u, uint32_t v) {
  const uint32_t y = (u & kUpper) | (v & kLower);
  return (y >> 1) ^ ((y & 1u) ? kMatrixA : 0u);
}

// Note [Generator state layout]
// get_state writes the bytes of PyTorch's CPUGeneratorImplState (x86-64, native byte order), so a
// state from torch.get_rng_state() loads here and the other way round:
//   0 u64 initial seed | 8 i32 left | 12 i32 seeded (1) | 16 u64 next | 24 u64[624] twister words
//   5016 f64 unused (0) | 5024 f64 cached double normal | 5032 f64 unused (0)
//   5040 i32 double normal valid | 5048 f32 cached float normal | 5052 u8 float normal valid
// Padding bytes are zero, as PyTorch's value-initialised struct leaves them.
constexpr size_t kStateBytes = 5056;
constexpr size_t kOffLeft = 8, kOffSeeded = 12, kOffNext = 16, kOffWords = 24;
constexpr size_t kOffNormalY = 5024, kOffNormalValid = 5040;
constexpr size_t kOffFloatNormal = 5048, kOffFloatValid = 5052;

template <class T>
void put(std::vector<uint8_t>& bytes, size_t offset, T value) {
  std::memcpy(bytes.data() + offset, &value, sizeof(T));
}

template <class T>
T get(const std::vector<uint8_t>& bytes, size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

}  // namespace

// ── Generator::State ───────────────────────────────────────────────────────

void Generator::State::reseed(uint64_t s) {
  // Only the low 32 bits feed the twister (as PyTorch and std::mt19937); the full seed is kept
  // for initial_seed().
  seed = s;
  mt[0] = uint32_t(s);
  for (uint32_t j = 1; j < uint32_t(kN); ++j)
    mt[j] = 1812433253u * (mt[j - 1] ^ (mt[j - 1] >> 30)) + j;
  left = 1;
  next = 0;
  next_float_normal.reset();
  next_double_normal.reset();
}

void Generator::State::twist() {
  int i = 0;
  for (; i < kN - kM; ++i) mt[i] = mt[i + kM] ^ twist_word(mt[i], mt[i + 1]);
  for (; i < kN - 1; ++i) mt[i] = mt[i + kM - kN] ^ twist_word(mt[i], mt[i + 1]);
  mt[kN - 1] = mt[kM - 1] ^ twist_word(mt[kN - 1], mt[0]);
  left = kN;
  next = 0;
}

void Generator::State::copy_from(const State& other) {
  std::scoped_lock lock(mutex, other.mutex);
  seed = other.seed;
  left = other.left;
  next = other.next;
  mt = other.mt;
  next_float_normal = other.next_float_normal;
  next_double_normal = other.next_double_normal;
}

// ── Generator ──────────────────────────────────────────────────────────────

Generator::Generator(uint64_t seed) : state_(std::make_unique<State>()) { state_->reseed(seed); }
Generator::Generator(const Generator& other) : state_(std::make_unique<State>(*other.state_)) {}
Generator& Generator::operator=(const Generator& other) {
  if (this != &other) *state_ = *other.state_;
  return *this;
}
// A moved-from Generator may only be assigned to or destroyed.
Generator::Generator(Generator&&) noexcept = default;
Generator& Generator::operator=(Generator&&) noexcept = default;
Generator::~Generator() = default;

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard lock(state_->mutex);
  state_->reseed(seed);
}

uint64_t Generator::initial_seed() const {
  std::lock_guard lock(state_->mutex);
  return state_->seed;
}

uint32_t Generator::random() {
  std::lock_guard lock(state_->mutex);
  return state_->draw32();
}

uint64_t Generator::random64() {
  std::lock_guard lock(state_->mutex);
  return state_->draw64();
}

std::vector<uint8_t> Generator::get_state() const {
  std::lock_guard lock(state_->mutex);
  const State& s = *state_;
  std::vector<uint8_t> bytes(kStateBytes, 0);
  put<uint64_t>(bytes, 0, s.seed);
  put<int32_t>(bytes, kOffLeft, s.left);
  put<int32_t>(bytes, kOffSeeded, 1);
  put<uint64_t>(bytes, kOffNext, s.next);
  for (int i = 0; i < State::kN; ++i) put<uint64_t>(bytes, kOffWords + 8 * size_t(i), s.mt[i]);
  if (s.next_double_normal) {
    put<double>(bytes, kOffNormalY, *s.next_double_normal);
    put<int32_t>(bytes, kOffNormalValid, 1);
  }
  if (s.next_float_normal) {
    put<float>(bytes, kOffFloatNormal, *s.next_float_normal);
    put<uint8_t>(bytes, kOffFloatValid, 1);
  }
  return bytes;
}

void Generator::set_state(const std::vector<uint8_t>& bytes) {
  EMBER_CHECK(bytes.size() == kStateBytes, "set_state", "expected a generator state of ",
              kStateBytes, " bytes (torch.get_rng_state()'s layout), got ", bytes.size());
  const auto left = get<int32_t>(bytes, kOffLeft);
  const auto next = get<uint64_t>(bytes, kOffNext);
  // Valid states satisfy left + next <= 625: the draws before the next twist stay inside mt.
  EMBER_CHECK(get<int32_t>(bytes, kOffSeeded) != 0 && left > 0 && left <= State::kN &&
                  next + uint64_t(left) <= uint64_t(State::kN) + 1,
              "set_state", "invalid mt19937 state (left=", left, ", next=", next, ")");
  std::lock_guard lock(state_->mutex);
  State& s = *state_;
  s.seed = get<uint64_t>(bytes, 0);
  s.left = left;
  s.next = uint32_t(next);
  for (int i = 0; i < State::kN; ++i)
    s.mt[i] = uint32_t(get<uint64_t>(bytes, kOffWords + 8 * size_t(i)));
  s.next_double_normal.reset();
  if (get<int32_t>(bytes, kOffNormalValid)) s.next_double_normal = get<double>(bytes, kOffNormalY);
  s.next_float_normal.reset();
  if (get<uint8_t>(bytes, kOffFloatValid)) s.next_float_normal = get<float>(bytes, kOffFloatNormal);
}

// ── the default generator ──────────────────────────────────────────────────

Generator& default_generator() {
  // Seeded non-deterministically like PyTorch's; 53 bits so the seed survives a trip through a
  // double. The function-local static makes first use thread-safe.
  static Generator generator([] {
    std::random_device device;
    const uint64_t hi = device(), lo = device();
    return ((hi << 32) | lo) & ((uint64_t(1) << 53) - 1);
  }());
  return generator;
}

namespace {
struct ManualSeedHooks {
  std::mutex mutex;
  std::vector<detail::ManualSeedHook> hooks;
};
// A function-local static: hooks register from other translation units' static initialisers.
ManualSeedHooks& manual_seed_hooks() {
  static ManualSeedHooks registry;
  return registry;
}
}  // namespace

bool detail::add_manual_seed_hook(ManualSeedHook hook) {
  auto& registry = manual_seed_hooks();
  std::lock_guard<std::mutex> lock(registry.mutex);
  registry.hooks.push_back(hook);
  return true;
}

// As torch.manual_seed: every registered generator too (the CUDA backend's Philox generators).
void manual_seed(uint64_t seed) {
  default_generator().manual_seed(seed);
  auto& registry = manual_seed_hooks();
  std::lock_guard<std::mutex> lock(registry.mutex);
  for (detail::ManualSeedHook hook : registry.hooks) hook(seed);
}

}  // namespace ember
