// The softmax and log_softmax kernels' work, for the device (softmax.cu) and the CPU emulation
// (softmax_emulation.cpp) alike: one block per line, three passes over it (its max, the sum of
// exp(x - max), the outputs), each line's max subtracted so exp never overflows; an all -inf
// line gives NaN (-inf - -inf), as PyTorch's.
#pragma once

#include <cstdint>

#include "backend/cuda/block.cuh"
#include "backend/cuda/softmax_launch.h"

namespace ember::cuda::kernels {

/// Block x's share: lines x, x + blocks_x, ...; T float or double.
template <class T>
struct SoftmaxBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const SoftmaxLaunch& l) {
    for (int64_t line = b.x(); line < l.lines; line += b.blocks_x()) {
      const int64_t o = line / l.inner, i = line % l.inner;
      const int64_t start = o * l.dim * l.inner + i;
      const T* x = reinterpret_cast<const T*>(l.x) + start;
      T* y = reinterpret_cast<T*>(l.y) + start;
      const T m = b.broadcast(b.reduce(
          [&](uint32_t t) {
            T m = Max<T>{}.identity();
            for (int64_t j = t; j < l.dim; j += b.threads()) m = Max<T>{}(m, x[j * l.inner]);
            return m;
          },
          Max<T>{}));
      const T s = b.broadcast(b.reduce(
          [&](uint32_t t) {
            T s = 0;
            for (int64_t j = t; j < l.dim; j += b.threads()) s += math::exp(x[j * l.inner] - m);
            return s;
          },
          Sum<T>{}));
      b.each_thread([&](uint32_t t) {
        if (l.log) {
          const T shift = m + math::log(s);
          for (int64_t j = t; j < l.dim; j += b.threads()) y[j * l.inner] = x[j * l.inner] - shift;
        } else {
          for (int64_t j = t; j < l.dim; j += b.threads())
            y[j * l.inner] = math::exp(x[j * l.inner] - m) / s;
        }
      });
    }
  }
};

/// The body of l (launch.cuh): float32 and float64 only, as the front end computes the half
/// types in float32.
template <class F>
bool with_body(const SoftmaxLaunch& l, F&& f) {
  return with_type_among<float, double>(
      l.type, [&](auto t) { f(Tag<SoftmaxBody<typename decltype(t)::type>>{}); });
}

}  // namespace ember::cuda::kernels
