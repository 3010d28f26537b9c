// GradScaler's fused inf/NaN check and unscale, for the device (amp.cu) and the CPU emulation
// (amp_emulation.cpp) alike, as PyTorch's _amp_foreach_non_finite_check_and_unscale_ and the
// CPU's (backend/cpu/amp.cpp): each element read once in its op math type (float, double for
// double), checked, multiplied by inv_scale and stored, rounded once.
#pragma once

#include <cstdint>
#include <type_traits>

#include "backend/cuda/amp_launch.h"
#include "backend/cuda/block.cuh"

namespace ember::cuda::kernels {

template <class S>
struct UnscaleBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const UnscaleLaunch& l) {
    using C = std::conditional_t<std::is_same_v<S, double>, double, float>;
    const bool unscale = l.inv_scale != 1.0f;
    grid_stride(b, l.numel, [&](int64_t i) {
      S* p = reinterpret_cast<S*>(l.data) + i;
      const C v = C(*p);
      // v - v is 0 for every finite v and NaN for inf and NaN: the same test on both sides, with
      // no math library (and no fast-math here to fold it).
      if (!(v - v == C(0))) *l.found_inf = 1;  // every writer writes 1: no atomics needed
      if (unscale) *p = S(v * C(l.inv_scale));
    });
  }
};

/// The body of l (launch.cuh): the four floating types.
template <class F>
bool with_body(const UnscaleLaunch& l, F&& f) {
  return with_floating_type(l.type,
                            [&](auto t) { f(Tag<UnscaleBody<typename decltype(t)::type>>{}); });
}

}  // namespace ember::cuda::kernels
