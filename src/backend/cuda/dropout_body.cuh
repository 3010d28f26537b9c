// The CUDA fused dropout kernels' work (dropout_launch.h), for the device (dropout.cu) and the
// CPU emulation (dropout_emulation.cpp) alike.
#pragma once

#include <cstdint>

#include "backend/cuda/block.cuh"
#include "backend/cuda/dropout_launch.h"
#include "backend/cuda/philox.cuh"
#include "backend/cuda/random_body.cuh"
#include "backend/cuda/strided.cuh"

namespace ember::cuda::kernels {

template <class S>
struct DropoutBody {
  using C = opmath_t<S>;  // PyTorch's accscalar_t: keep, scale and the product

  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const DropoutLaunch& l) {
    const int64_t grid = int64_t(b.threads()) * b.blocks_x();
    const C keep = C(l.keep);
    const C scale = C(1.0 / double(keep));  // `1.0 / p` in double, then stored as C
    b.each_thread([&](uint32_t t) {
      const int64_t idx = int64_t(b.x()) * b.threads() + t;
      Philox rng(l.seed, uint64_t(idx), l.offset);
      const auto element = [&](int64_t i, float u) {
        int64_t off[3];
        strided_offsets(l, i, off);
        const bool kept = C(u) < keep;
        const C x = C(*reinterpret_cast<const S*>(l.base[2] + off[2]));
        *reinterpret_cast<S*>(l.base[0] + off[0]) = store_as<S>(x * C(kept ? 1 : 0) * scale);
        *reinterpret_cast<bool*>(l.base[1] + off[1]) = kept;
      };
      if (l.vec > 1) {
        // numel is a multiple of vec (the plan's condition), so no element is past the end.
        for (int64_t first = idx * l.vec; first < l.numel; first += grid * l.vec) {
          const Floats4 u = uniform4(rng);
          for (int32_t j = 0; j < l.vec; ++j) element(first + j, u.v[j]);
        }
        return;
      }
      const int64_t chunk = grid * 4, rounded = ((l.numel - 1) / chunk + 1) * chunk;
      for (int64_t first = idx; first < rounded; first += chunk) {
        const Floats4 u = uniform4(rng);
        for (int32_t j = 0; j < 4; ++j)
          if (first + j * grid < l.numel) element(first + j * grid, u.v[j]);
      }
    });
  }
};

template <class S>
struct DropoutBackwardBody {
  using C = opmath_t<S>;

  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const DropoutBackwardLaunch& l) {
    const C scale = C(l.scale);
    each_strided<3>(b, l, [&](char* const* at) {
      const float m = *reinterpret_cast<const bool*>(at[2]) ? 1.0f : 0.0f;
      *reinterpret_cast<S*>(at[0]) = store_as<S>(m * C(*reinterpret_cast<const S*>(at[1])) * scale);
    });
  }
};

/// The bodies of the launches (launch.cuh): the four floating types.
template <class F>
bool with_body(const DropoutLaunch& l, F&& f) {
  return with_floating_type(l.type,
                            [&](auto s) { f(Tag<DropoutBody<typename decltype(s)::type>>{}); });
}
template <class F>
bool with_body(const DropoutBackwardLaunch& l, F&& f) {
  return with_floating_type(
      l.type, [&](auto s) { f(Tag<DropoutBackwardBody<typename decltype(s)::type>>{}); });
}

}  // namespace ember::cuda::kernels
