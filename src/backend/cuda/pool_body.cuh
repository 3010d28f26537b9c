// The max pooling kernel's work (pool_launch.h), for the device (pool.cu) and the CPU emulation
// (pool_emulation.cpp) alike.
#pragma once

#include <cstdint>

#include "backend/cuda/block.cuh"
#include "backend/cuda/pool_launch.h"

namespace ember::cuda::kernels {

template <class S>
struct MaxPoolBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const MaxPoolLaunch& l) {
    using C = opmath_t<S>;
    grid_stride(b, l.P * l.Ho * l.Wo, [&](int64_t o) {
      const int64_t ow = o % l.Wo, oh = o / l.Wo % l.Ho, plane = o / (l.Ho * l.Wo);
      const S* in = reinterpret_cast<const S*>(l.in) + plane * l.H * l.W;
      // The window's rows [ih0, ih1) and columns [iw0, iw1), dilation apart, within the plane.
      int64_t ih0 = oh * l.stride[0] - l.padding[0], iw0 = ow * l.stride[1] - l.padding[1];
      const int64_t ih1 = ih0 + (l.kernel[0] - 1) * l.dilation[0] + 1 < l.H
                              ? ih0 + (l.kernel[0] - 1) * l.dilation[0] + 1
                              : l.H;
      const int64_t iw1 = iw0 + (l.kernel[1] - 1) * l.dilation[1] + 1 < l.W
                              ? iw0 + (l.kernel[1] - 1) * l.dilation[1] + 1
                              : l.W;
      while (ih0 < 0) ih0 += l.dilation[0];
      while (iw0 < 0) iw0 += l.dilation[1];
      C best = C(-INFINITY);
      int64_t best_i = ih0 * l.W + iw0;
      for (int64_t ih = ih0; ih < ih1; ih += l.dilation[0])
        for (int64_t iw = iw0; iw < iw1; iw += l.dilation[1]) {
          const C v = C(in[ih * l.W + iw]);
          if (v > best || v != v) {
            best = v;
            best_i = ih * l.W + iw;
          }
        }
      reinterpret_cast<S*>(l.out)[o] = S(best);
      if (l.indices) l.indices[o] = best_i;
    });
  }
};

/// The body of l (launch.cuh): the four floating types.
template <class F>
bool with_body(const MaxPoolLaunch& l, F&& f) {
  return with_floating_type(l.type,
                            [&](auto s) { f(Tag<MaxPoolBody<typename decltype(s)::type>>{}); });
}

}  // namespace ember::cuda::kernels
