// The batch norm kernels' work (batch_norm_launch.h's passes), for the device (batch_norm.cu) and
// the CPU emulation (batch_norm_emulation.cpp) alike. A channel's sums are block reductions in the
// op math type T (Note [Block programs] in block.cuh), the mean before the squared deviations
// from it (two sweeps, no cancellation when |mean| >> std); the per-channel constants are
// computed in double, as the CPU's, and rounded to T once.
#pragma once

#include <cstdint>

#include "backend/cuda/batch_norm_launch.h"
#include "backend/cuda/block.cuh"

namespace ember::cuda::kernels {

template <class S>
struct BatchNormBody {
  using T = opmath_t<S>;
  const BatchNormLaunch& l;

  EMBER_HOST_DEVICE int64_t M() const { return l.N * l.S; }
  /// Element i of channel c (i < M: plane i / S, offset i % S).
  EMBER_HOST_DEVICE int64_t at(int64_t c, int64_t i) const {
    return (i / l.S * l.C + c) * l.S + i % l.S;
  }
  EMBER_HOST_DEVICE T get(const char* p, int64_t e) const {
    return T(reinterpret_cast<const S*>(p)[e]);
  }
  EMBER_HOST_DEVICE T param(const char* p, int64_t c, T absent) const {
    return p ? reinterpret_cast<const T*>(p)[c] : absent;
  }

  /// Σ f(i) over channel c's elements, in every thread.
  template <class Block, class F>
  EMBER_HOST_DEVICE T channel_sum(const Block& b, F&& f) const {
    return b.broadcast(b.reduce(
        [&](uint32_t t) {
          T s = T(0);
          for (int64_t i = t; i < M(); i += b.threads()) s += f(i);
          return s;
        },
        Sum<T>{}));
  }

  template <class Block>
  EMBER_HOST_DEVICE void stats(const Block& b) const {
    for (int64_t c = b.x(); c < l.C; c += b.blocks_x()) {
      const T mean = channel_sum(b, [&](int64_t i) { return get(l.x, at(c, i)); }) / T(M());
      const T var = channel_sum(b,
                                [&](int64_t i) {
                                  const T d = get(l.x, at(c, i)) - mean;
                                  return d * d;
                                }) /
                    T(M());
      b.leader([&] {
        l.batch_mean[c] = double(mean);
        l.batch_var[c] = double(var);
      });
    }
  }

  template <class Block>
  EMBER_HOST_DEVICE void params(const Block& b) const {
    T* scratch = reinterpret_cast<T*>(l.scratch);
    grid_stride(b, l.C, [&](int64_t c) {
      const double invstd = 1.0 / math::sqrt(l.var[c] + l.eps);
      const double a = invstd * double(param(l.weight, c, T(1)));
      reinterpret_cast<T*>(l.save_mean)[c] = T(l.mean[c]);
      reinterpret_cast<T*>(l.save_invstd)[c] = T(invstd);
      scratch[c] = T(a);
      scratch[l.C + c] = T(double(param(l.bias, c, T(0))) - l.mean[c] * a);
    });
  }

  template <class Block>
  EMBER_HOST_DEVICE void affine(const Block& b) const {
    const T* scratch = reinterpret_cast<const T*>(l.scratch);
    grid_stride(b, l.N * l.C * l.S, [&](int64_t e) {
      const int64_t c = e / l.S % l.C;
      reinterpret_cast<S*>(l.y)[e] = S(math::fma(get(l.x, e), scratch[c], scratch[l.C + c]));
    });
  }

  template <class Block>
  EMBER_HOST_DEVICE void grad_sums(const Block& b) const {
    const T* save_mean = reinterpret_cast<const T*>(l.save_mean);
    const T* invstd = reinterpret_cast<const T*>(l.save_invstd);
    T* scratch = reinterpret_cast<T*>(l.scratch);
    for (int64_t c = b.x(); c < l.C; c += b.blocks_x()) {
      const T sum_dy = channel_sum(b, [&](int64_t i) { return get(l.grad_out, at(c, i)); });
      const T dot = channel_sum(b, [&](int64_t i) {
        return get(l.grad_out, at(c, i)) * (get(l.x, at(c, i)) - save_mean[c]);
      });
      b.leader([&] {
        const double is = double(invstd[c]), m = double(M());
        if (l.grad_weight) reinterpret_cast<T*>(l.grad_weight)[c] = T(double(dot) * is);
        if (l.grad_bias) reinterpret_cast<T*>(l.grad_bias)[c] = sum_dy;
        scratch[c] = l.training ? T(double(dot) * is * is / m) : T(0);
        scratch[l.C + c] = l.training ? T(double(sum_dy) / m) : T(0);
      });
    }
  }

  template <class Block>
  EMBER_HOST_DEVICE void grad_input(const Block& b) const {
    const T* save_mean = reinterpret_cast<const T*>(l.save_mean);
    const T* invstd = reinterpret_cast<const T*>(l.save_invstd);
    const T* scratch = reinterpret_cast<const T*>(l.scratch);
    grid_stride(b, l.N * l.C * l.S, [&](int64_t e) {
      const int64_t c = e / l.S % l.C;
      const T k = l.training ? scratch[c] : T(0), gm = l.training ? scratch[l.C + c] : T(0);
      const T sc = T(double(invstd[c]) * double(param(l.weight, c, T(1))));
      const T d = get(l.x, e) - save_mean[c];
      reinterpret_cast<S*>(l.grad_input)[e] = S((get(l.grad_out, e) - math::fma(d, k, gm)) * sc);
    });
  }

  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const BatchNormLaunch& l) {
    const BatchNormBody body{l};
    switch (l.pass) {
      case BatchNormLaunch::stats_pass:
        return body.stats(b);
      case BatchNormLaunch::params_pass:
        return body.params(b);
      case BatchNormLaunch::affine_pass:
        return body.affine(b);
      case BatchNormLaunch::grad_sums_pass:
        return body.grad_sums(b);
      case BatchNormLaunch::grad_input_pass:
        return body.grad_input(b);
    }
  }
};

/// The body of l (launch.cuh): the four floating types.
template <class F>
bool with_body(const BatchNormLaunch& l, F&& f) {
  return with_floating_type(l.type,
                            [&](auto s) { f(Tag<BatchNormBody<typename decltype(s)::type>>{}); });
}

}  // namespace ember::cuda::kernels
