// The cumsum and cumprod kernels' work (scan_launch.h), for the device (scan.cu) and the CPU
// emulation (scan_emulation.cpp) alike.
#pragma once

#include <cstdint>
#include <type_traits>

#include "backend/cuda/block.cuh"
#include "backend/cuda/scan_launch.h"

namespace ember::cuda::kernels {

template <class S>
struct ScanBody {
  using C = opmath_t<S>;
  using Acc = std::conditional_t<std::is_floating_point_v<C>, double, C>;

  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const ScanLaunch& l) {
    grid_stride(b, l.lines, [&](int64_t line) {
      const int64_t start = line / l.inner * l.n * l.inner + line % l.inner;
      const S* x = reinterpret_cast<const S*>(l.x) + start;
      S* y = reinterpret_cast<S*>(l.y) + start;
      Acc acc = Acc(l.prod ? 1 : 0);
      for (int64_t d = 0; d < l.n; ++d) {
        const Acc v = Acc(C(x[d * l.inner]));
        acc = l.prod ? Acc(acc * v) : Acc(acc + v);
        y[d * l.inner] = S(C(acc));
      }
    });
  }
};

/// The body of l (launch.cuh): the floating types and int32/int64.
template <class F>
bool with_body(const ScanLaunch& l, F&& f) {
  return with_type_among<float, double, Half, BFloat16, int32_t, int64_t>(
      l.type, [&](auto s) { f(Tag<ScanBody<typename decltype(s)::type>>{}); });
}

}  // namespace ember::cuda::kernels
