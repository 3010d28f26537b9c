// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11), the
// counter-based generator of curand's curandStatePhilox4_32_10_t and so of PyTorch's CUDA
// distribution kernels, for the device and the CPU emulation alike: the block function, curand's
// (seed, subsequence, offset) stream over it, and the curand transforms PyTorch's kernels call
// (curand_uniform4, curand_uniform2_double, curand_normal4, curand_normal2_double).
// Note [Philox streams] in random_launch.h says which results match PyTorch bit for bit.
#pragma once

#include <cstdint>

#include "backend/cuda/host_device.cuh"

namespace ember::cuda::kernels {

/// Four 32-bit words: a Philox counter or one block's output (curand's uint4 on either side).
struct Words4 {
  uint32_t x, y, z, w;
};

/// The Philox4x32 block function with 10 rounds: `ctr` encrypted under the 64-bit key (k0, k1).
/// Each round multiplies two words by the Philox constants, crosses the halves of the products
/// with the other two words and the round key, and the key steps by the Weyl constants.
EMBER_HOST_DEVICE inline Words4 philox4x32_10(Words4 ctr, uint32_t k0, uint32_t k1) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t(kMul0) * ctr.x, p1 = uint64_t(kMul1) * ctr.z;
    ctr = Words4{uint32_t(p1 >> 32) ^ ctr.y ^ k0, uint32_t(p1), uint32_t(p0 >> 32) ^ ctr.w ^ k1,
                 uint32_t(p0)};
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  return ctr;
}

/// curand's Philox4_32_10 state over the block function: the key is the seed, the counter's high
/// 64 bits are the subsequence (a thread's index in PyTorch's kernels) and its low 64 bits count
/// blocks of four words; `offset` skips that many words. Built and used within one thread.
class Philox {
 public:
  EMBER_HOST_DEVICE Philox(uint64_t seed, uint64_t subsequence, uint64_t offset)
      : k0_(uint32_t(seed)), k1_(uint32_t(seed >> 32)) {
    ctr_ = Words4{0, 0, uint32_t(subsequence), uint32_t(subsequence >> 32)};
    lane_ = uint32_t(offset & 3);
    add_to_counter(offset / 4);
    out_ = philox4x32_10(ctr_, k0_, k1_);
  }

  /// The next four words (curand4): the current block from the current lane on, the rest taken
  /// from the next block. PyTorch's offsets are multiples of 4, so the lane is 0 there.
  EMBER_HOST_DEVICE Words4 next4() {
    const Words4 cur = out_;
    add_to_counter(1);
    out_ = philox4x32_10(ctr_, k0_, k1_);
    const uint32_t w[8] = {cur.x, cur.y, cur.z, cur.w, out_.x, out_.y, out_.z, out_.w};
    return Words4{w[lane_], w[lane_ + 1], w[lane_ + 2], w[lane_ + 3]};
  }

 private:
  // Adds n to the counter's low 64 bits, carrying into the high 64.
  EMBER_HOST_DEVICE void add_to_counter(uint64_t n) {
    const uint64_t lo = (uint64_t(ctr_.y) << 32 | ctr_.x) + n;
    if (lo < n && ++ctr_.z == 0) ++ctr_.w;
    ctr_.x = uint32_t(lo);
    ctr_.y = uint32_t(lo >> 32);
  }

  uint32_t k0_, k1_;
  Words4 ctr_;
  Words4 out_;     // the block of the current counter
  uint32_t lane_;  // the first word of out_ not yet returned
};

// ── curand's transforms of the words (curand_uniform.h, curand_normal.h) ──────────────────────
// The a * b + c of curand's headers is one fma on the device (nvcc contracts it, as in PyTorch's
// build); written as math::fma here so the host computes the same bits.

inline constexpr float kTwoPow32Inv = 2.3283064e-10f;  // curand's 2^-32, as a float
inline constexpr float kTwoPow32Inv2Pi = 2.3283064e-10f * 6.2831855f;
inline constexpr double kTwoPow53Inv = 1.1102230246251565e-16;  // 2^-53

/// A word as a float in (0, 1]: curand_uniform's (x + 1/2) 2^-32.
EMBER_HOST_DEVICE inline float uniform_float(uint32_t x) {
  return math::fma(float(x), kTwoPow32Inv, kTwoPow32Inv / 2.0f);
}

/// Two words as a double in (0, 1]: 53 bits of x ^ (y << 21), plus half a step.
EMBER_HOST_DEVICE inline double uniform_double(uint32_t x, uint32_t y) {
  const uint64_t z = uint64_t(x) ^ (uint64_t(y) << (53 - 32));
  return math::fma(double(z), kTwoPow53Inv, kTwoPow53Inv / 2.0);
}

/// curand_uniform4: four floats in (0, 1].
struct Floats4 {
  float v[4];
};
EMBER_HOST_DEVICE inline Floats4 uniform4(Philox& rng) {
  const Words4 w = rng.next4();
  return Floats4{{uniform_float(w.x), uniform_float(w.y), uniform_float(w.z), uniform_float(w.w)}};
}

/// curand_uniform2_double: two doubles in (0, 1] from four words.
struct Doubles2 {
  double v[2];
};
EMBER_HOST_DEVICE inline Doubles2 uniform2_double(Philox& rng) {
  const Words4 w = rng.next4();
  return Doubles2{{uniform_double(w.x, w.y), uniform_double(w.z, w.w)}};
}

/// curand's float Box–Muller on two words: radius sqrt(-2 log u), angle v in (0, 2 pi]. The device
/// takes curand's device path (__sincosf, the fast intrinsic), the host libm's sinf/cosf (curand's
/// host path): equal within a few ulp, not bit for bit (Note [Philox streams]).
EMBER_HOST_DEVICE inline void box_muller(uint32_t x, uint32_t y, float& a, float& b) {
  const float u = math::fma(float(x), kTwoPow32Inv, kTwoPow32Inv / 2.0f);
  const float v = math::fma(float(y), kTwoPow32Inv2Pi, kTwoPow32Inv2Pi / 2.0f);
  const float s = math::sqrt(-2.0f * math::log(u));
#ifdef __CUDA_ARCH__
  __sincosf(v, &a, &b);
#else
  a = math::sin(v);
  b = math::cos(v);
#endif
  a *= s;
  b *= s;
}

/// curand_normal4: four standard normal floats (two Box–Muller pairs).
EMBER_HOST_DEVICE inline Floats4 normal4(Philox& rng) {
  const Words4 w = rng.next4();
  Floats4 r;
  box_muller(w.x, w.y, r.v[0], r.v[1]);
  box_muller(w.z, w.w, r.v[2], r.v[3]);
  return r;
}

/// curand_normal2_double: one double Box–Muller pair from four words; the angle is pi v with v in
/// (0, 2], which the device evaluates with sincospi and the host as sin(v pi) (Note [Philox
/// streams]).
EMBER_HOST_DEVICE inline Doubles2 normal2_double(Philox& rng) {
  const Words4 w = rng.next4();
  const double u = uniform_double(w.x, w.y);
  const uint64_t zv = uint64_t(w.z) ^ (uint64_t(w.w) << (53 - 32));
  const double v = math::fma(double(zv), kTwoPow53Inv * 2.0, kTwoPow53Inv);
  const double s = math::sqrt(-2.0 * math::log(u));
  double a, b;
#ifdef __CUDA_ARCH__
  sincospi(v, &a, &b);
#else
  constexpr double kPi = 3.1415926535897932;
  a = math::sin(v * kPi);
  b = math::cos(v * kPi);
#endif
  return Doubles2{{a * s, b * s}};
}

}  // namespace ember::cuda::kernels
