// The softmax and log_softmax kernels' work, forward and backward, for the device (softmax.cu)
// and the CPU emulation (softmax_emulation.cpp) alike: one block per line. The forward makes
// three passes over it (its max, the sum of exp(x - max), the outputs), each line's max
// subtracted so exp never overflows; an all -inf line gives NaN (-inf - -inf), as PyTorch's. The
// backward makes two (the sum, the outputs).
#pragma once

#include <cstdint>

#include "backend/cuda/block.cuh"
#include "backend/cuda/softmax_launch.h"

namespace ember::cuda::kernels {

/// Line `line`'s first element in an operand at `base` holding T.
template <class T, class Byte>
EMBER_HOST_DEVICE T* line_start(Byte* base, const SoftmaxLines& l, int64_t line) {
  return reinterpret_cast<T*>(base) + line / l.inner * l.dim * l.inner + line % l.inner;
}

/// Block x's share: lines x, x + blocks_x, ...; T float or double.
template <class T>
struct SoftmaxBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const SoftmaxLaunch& l) {
    for (int64_t line = b.x(); line < l.lines; line += b.blocks_x()) {
      const T* x = line_start<const T>(l.x, l, line);
      T* y = line_start<T>(l.y, l, line);
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

/// The backward, S the storage type, C the one its sums and products are computed in.
template <class S>
struct SoftmaxBackwardBody {
  using C = opmath_t<S>;

  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const SoftmaxBackwardLaunch& l) {
    for (int64_t line = b.x(); line < l.lines; line += b.blocks_x()) {
      const S* g = line_start<const S>(l.grad, l, line);
      const S* y = line_start<const S>(l.y, l, line);
      S* dx = line_start<S>(l.dx, l, line);
      // softmax: sum(grad * y); log_softmax: sum(grad).
      const C s = b.broadcast(b.reduce(
          [&](uint32_t t) {
            C s = 0;
            for (int64_t j = t; j < l.dim; j += b.threads())
              s += l.log ? C(g[j * l.inner]) : C(g[j * l.inner]) * C(y[j * l.inner]);
            return s;
          },
          Sum<C>{}));
      b.each_thread([&](uint32_t t) {
        for (int64_t j = t; j < l.dim; j += b.threads()) {
          const C gj = C(g[j * l.inner]), yj = C(y[j * l.inner]);
          dx[j * l.inner] = S(l.log ? gj - math::exp(yj) * s : yj * (gj - s));
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
/// The backward's: the four floating types.
template <class F>
bool with_body(const SoftmaxBackwardLaunch& l, F&& f) {
  return with_floating_type(
      l.type, [&](auto s) { f(Tag<SoftmaxBackwardBody<typename decltype(s)::type>>{}); });
}

}  // namespace ember::cuda::kernels
