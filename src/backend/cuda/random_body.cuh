// The CUDA random fills' work (random_launch.h, Note [Philox streams]), for the device
// (random.cu) and the CPU emulation (random_emulation.cpp) alike.
#pragma once

#include <cstdint>
#include <type_traits>

#include "backend/cuda/block.cuh"
#include "backend/cuda/philox.cuh"
#include "backend/cuda/random_launch.h"
#include "backend/cuda/strided.cuh"

namespace ember::cuda::kernels {

/// A value computed in C stored as S: the half types from float, bool as != 0.
template <class S, class C>
EMBER_HOST_DEVICE S store_as(C v) {
  if constexpr (is_half_v<S>)
    return S(float(v));
  else
    return S(v);
}

/// The elements one draw serves: 2 for the 64-bit draws (float64's uniform/normal/bernoulli and
/// random64), 4 otherwise.
EMBER_HOST_DEVICE inline int32_t random_unroll(const RandomLaunch& l) {
  const bool wide = l.dist == Distribution::random64 ||
                    (l.type == Type::float64 && l.dist != Distribution::random32);
  return wide ? 2 : 4;
}

/// std::numeric_limits<C>::epsilon() of an opmath type, on either side.
template <class C>
EMBER_HOST_DEVICE constexpr C epsilon() {
  return std::is_same_v<C, double> ? C(0x1p-52) : C(0x1p-23);
}

template <class S>
struct RandomBody {
  using C = opmath_t<S>;
  static constexpr bool kFloating = std::is_floating_point_v<C>;

  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const RandomLaunch& l) {
    const int32_t unroll = random_unroll(l);
    const int64_t grid = int64_t(b.threads()) * b.blocks_x();
    // Every thread makes the same number of draws (PyTorch's rounded_size), so the generator's
    // offset advances by the same amount whatever the thread.
    const int64_t chunk = grid * unroll,
                  rounded = l.numel == 0 ? 0 : ((l.numel - 1) / chunk + 1) * chunk;
    b.each_thread([&](uint32_t t) {
      const int64_t idx = int64_t(b.x()) * b.threads() + t;
      Philox rng(l.seed, uint64_t(idx), l.offset);
      for (int64_t first = idx; first < rounded; first += chunk) {
        S v[4];
        draw(l, rng, v);
        for (int32_t j = 0; j < unroll; ++j) {
          const int64_t i = first + j * grid;
          if (i >= l.numel) continue;
          int64_t off[1];
          strided_offsets(l, i, off);
          *reinterpret_cast<S*>(l.base[0] + off[0]) = v[j];
        }
      }
    });
  }

  // One draw's values: 4 (or 2, random_unroll) elements' worth.
  EMBER_HOST_DEVICE static void draw(const RandomLaunch& l, Philox& rng, S (&v)[4]) {
    switch (l.dist) {
      case Distribution::uniform:
        if constexpr (kFloating) {
          // from and to round to S first, and their difference too (c10's Half arithmetic).
          const C from = C(store_as<S>(l.a)), to = C(store_as<S>(l.b));
          const C range = C(store_as<S>(to - from));
          // curand's (0, 1] turned into [0, 1): a draw of exactly 1 becomes 0.
          each_unit(rng, [&](int j, C u) {
            v[j] = store_as<S>(math::fma(u == C(1) ? C(0) : u, range, from));
          });
        }
        break;
      case Distribution::normal:
        if constexpr (kFloating) {
          const C mean = C(l.a), std = C(l.b);
          if constexpr (std::is_same_v<C, double>) {
            const Doubles2 z = normal2_double(rng);
            for (int j = 0; j < 2; ++j) v[j] = store_as<S>(math::fma(z.v[j], std, mean));
          } else {
            const Floats4 z = normal4(rng);
            for (int j = 0; j < 4; ++j) v[j] = store_as<S>(math::fma(z.v[j], std, mean));
          }
        }
        break;
      case Distribution::bernoulli: {
        // PyTorch compares in its discrete distribution type: double for float64, else float.
        using D = std::conditional_t<std::is_same_v<S, double>, double, float>;
        const D p = D(l.a);
        each_unit(rng, [&](int j, D u) { v[j] = store_as<S>(u < p ? 1 : 0); });
        break;
      }
      case Distribution::exponential:
        if constexpr (kFloating) {
          // PyTorch 1.13's transformation::exponential for CUDA, in the opmath type: curand's
          // uniform is in (0, 1], and log(1) = 0 is not an exponential variate, so u within half
          // an epsilon of 1 takes log = -epsilon/2. (2.x squashes u = 1 to the float below 1.)
          const C lambda = C(l.a), half_eps = epsilon<C>() / 2;
          each_unit(rng, [&](int j, C u) {
            const C log_u = u >= C(1) - half_eps ? -half_eps : math::log(u);
            v[j] = store_as<S>(C(-1) / lambda * log_u);
          });
        }
        break;
      case Distribution::random32: {
        const Words4 w = rng.next4();
        const uint32_t words[4] = {w.x, w.y, w.z, w.w};
        for (int j = 0; j < 4; ++j) v[j] = store_as<S>(int64_t(words[j] % l.range) + l.low);
        break;
      }
      case Distribution::random64: {
        const Words4 w = rng.next4();
        const uint64_t pair[2] = {uint64_t(w.x) << 32 | w.y, uint64_t(w.z) << 32 | w.w};
        for (int j = 0; j < 2; ++j)
          v[j] = store_as<S>(int64_t(pair[j] % l.range + uint64_t(l.low)));
        break;
      }
    }
  }

  // f(j, u) for the unit uniforms of one draw: uniform2_double for float64 (curand's 53-bit
  // doubles), curand_uniform4's floats otherwise.
  template <class F>
  EMBER_HOST_DEVICE static void each_unit(Philox& rng, F&& f) {
    if constexpr (std::is_same_v<S, double>) {
      const Doubles2 u = uniform2_double(rng);
      for (int j = 0; j < 2; ++j) f(j, u.v[j]);
    } else {
      const Floats4 u = uniform4(rng);
      for (int j = 0; j < 4; ++j) f(j, u.v[j]);
    }
  }
};

/// The body of l (launch.cuh): every storage type; uniform and normal only for the floating ones
/// (the plan refuses the others).
template <class F>
bool with_body(const RandomLaunch& l, F&& f) {
  return with_type(l.type, [&](auto s) { f(Tag<RandomBody<typename decltype(s)::type>>{}); });
}

}  // namespace ember::cuda::kernels
