// The layer_norm and rms_norm kernels' work, for the device (norm.cu) and the CPU emulation
// (norm_emulation.cpp) alike. A row's statistics are block reductions (Note [Block programs] in
// block.cuh) in the op math type T: the mean, then the mean of squared deviations from it (two
// sweeps over a row that stays in cache: no cancellation when |mean| >> std, as the CPU's
// chunked moments). Every a * b + c is an explicit fma, as nvcc would contract it, so the
// emulation rounds as the device does.
#pragma once

#include <cstdint>

#include "backend/cuda/block.cuh"
#include "backend/cuda/norm_launch.h"

namespace ember::cuda::kernels {

/// Σ f(j) over a row's columns j in T: each thread its strided share, then the block's tree;
/// the total, in every thread.
template <class T, class Block, class F>
EMBER_HOST_DEVICE T row_sum(const Block& b, int64_t cols, F&& f) {
  return b.broadcast(b.reduce(
      [&](uint32_t t) {
        T s = T(0);
        for (int64_t j = t; j < cols; j += b.threads()) s += f(j);
        return s;
      },
      Sum<T>{}));
}

/// The weight's and bias's index of column j of row r (NormChannels).
EMBER_HOST_DEVICE inline int64_t channel_of(const NormChannels& ch, int64_t cols, int64_t r,
                                            int64_t j) {
  return ch.groups == 1 && ch.size == 1 ? j : ((r % ch.groups) * cols + j) / ch.size;
}

template <class S>
struct RowNormBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const RowNormLaunch& l) {
    using T = opmath_t<S>;
    const T* w = reinterpret_cast<const T*>(l.weight);
    const T* bias = reinterpret_cast<const T*>(l.bias);
    const T n = T(l.cols);
    for (int64_t r = b.x(); r < l.rows; r += b.blocks_x()) {
      const S* x = reinterpret_cast<const S*>(l.x) + r * l.cols;
      S* y = reinterpret_cast<S*>(l.y) + r * l.cols;
      const T mean = l.mean ? row_sum<T>(b, l.cols, [&](int64_t j) { return T(x[j]); }) / n : T(0);
      const T var = row_sum<T>(b, l.cols,
                               [&](int64_t j) {
                                 const T d = T(x[j]) - mean;
                                 return d * d;
                               }) /
                    n;
      const T rstd = math::rsqrt(var + T(l.eps));
      b.leader([&] {
        if (l.mean) reinterpret_cast<T*>(l.mean)[r] = mean;
        reinterpret_cast<T*>(l.rstd)[r] = rstd;
      });
      b.each_thread([&](uint32_t t) {
        for (int64_t j = t; j < l.cols; j += b.threads()) {
          const int64_t p = channel_of(l.channels, l.cols, r, j);
          T v = (T(x[j]) - mean) * rstd;
          if (w)
            v = bias ? math::fma(v, w[p], bias[p]) : v * w[p];
          else if (bias)
            v = v + bias[p];
          y[j] = S(v);
        }
      });
    }
  }
};

template <class S>
struct RowNormBackwardBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const RowNormBackwardLaunch& l) {
    using T = opmath_t<S>;
    const T* w = reinterpret_cast<const T*>(l.weight);
    const T* mean = reinterpret_cast<const T*>(l.mean);
    const T* rstd = reinterpret_cast<const T*>(l.rstd);
    const S* x = reinterpret_cast<const S*>(l.x);
    const S* dy = reinterpret_cast<const S*>(l.grad_out);
    if (l.pass == RowNormBackwardLaunch::columns_pass) {
      T* gw = reinterpret_cast<T*>(l.grad_weight);
      T* gb = reinterpret_cast<T*>(l.grad_bias);
      const NormChannels ch = l.channels;
      const int64_t per_row = l.cols / ch.size;  // channels a row holds
      grid_stride(b, ch.groups * per_row, [&](int64_t c) {
        T sw = T(0), sb = T(0);
        for (int64_t n = 0; n < l.rows / ch.groups; ++n) {  // the rows holding channel c
          const int64_t r = n * ch.groups + c / per_row;
          const int64_t start = r * l.cols + (c % per_row) * ch.size;
          const T mu = mean ? mean[r] : T(0), rs = rstd[r];
          for (int64_t e = start; e < start + ch.size; ++e) {
            const T g = T(dy[e]);
            sw = math::fma(g, (T(x[e]) - mu) * rs, sw);
            sb += g;
          }
        }
        if (gw) gw[c] = sw;
        if (gb) gb[c] = sb;
      });
      return;
    }
    const T n = T(l.cols);
    for (int64_t r = b.x(); r < l.rows; r += b.blocks_x()) {
      const S* xr = x + r * l.cols;
      const S* gr = dy + r * l.cols;
      S* dx = reinterpret_cast<S*>(l.grad_input) + r * l.cols;
      const T mu = mean ? mean[r] : T(0), rs = rstd[r];
      auto g = [&](int64_t j) {
        return w ? T(gr[j]) * w[channel_of(l.channels, l.cols, r, j)] : T(gr[j]);
      };
      const T sum_g = mean ? row_sum<T>(b, l.cols, g) : T(0);
      const T dot = row_sum<T>(b, l.cols, [&](int64_t j) { return g(j) * (T(xr[j]) - mu); });
      const T k = dot * rs * rs / n, gm = sum_g / n;
      b.each_thread([&](uint32_t t) {
        for (int64_t j = t; j < l.cols; j += b.threads())
          dx[j] = S((g(j) - math::fma(T(xr[j]) - mu, k, gm)) * rs);
      });
    }
  }
};

// The bodies of each launch (launch.cuh).
template <class F>
bool with_body(const RowNormLaunch& l, F&& f) {
  return with_floating_type(l.type,
                            [&](auto s) { f(Tag<RowNormBody<typename decltype(s)::type>>{}); });
}
template <class F>
bool with_body(const RowNormBackwardLaunch& l, F&& f) {
  return with_floating_type(
      l.type, [&](auto s) { f(Tag<RowNormBackwardBody<typename decltype(s)::type>>{}); });
}

}  // namespace ember::cuda::kernels
