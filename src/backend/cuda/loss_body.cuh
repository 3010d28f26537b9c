// The class-index losses' work (loss_launch.h's passes), for the device (loss.cu) and the CPU
// emulation (loss_emulation.cpp) alike. Each position's log-sum-exp is two block reductions (the
// max, then Σ exp(x - max), as softmax_body.cuh), so a NaN or +inf logit or an all -inf row
// gives NaN, as the CPU's. Label smoothing's weights are a = 1 - ls on the target's term and
// b = ls / C on the smoothing term.
#pragma once

#include <cstdint>

#include "backend/cuda/block.cuh"
#include "backend/cuda/loss_launch.h"

namespace ember::cuda::kernels {

template <class T>
struct ClassLossBody {
  const ClassLossLaunch& l;
  const T* x;  // position r's class c at x[(r / S) C S + c S + r % S]
  const T* w;

  EMBER_HOST_DEVICE const T* row(int64_t r) const { return x + (r / l.S) * l.C * l.S + r % l.S; }
  EMBER_HOST_DEVICE T weight(int64_t c) const { return w ? w[c] : T(1); }
  /// Position r's target, or -1 when it is ignored or out of range (then recorded, when `check`).
  EMBER_HOST_DEVICE int64_t kept_target(int64_t r, bool check) const {
    const int64_t t = l.target[r];
    if (t == l.ignore_index) return -1;
    if (t < 0 || t >= l.C) {
      if (check) record_bad_index(l.bad, t);
      return -1;
    }
    return t;
  }

  /// Σ f(c) over the C classes, in every thread.
  template <class Block, class F, class Combine = Sum<T>>
  EMBER_HOST_DEVICE static T over(const Block& b, int64_t n, F&& f, Combine combine = {}) {
    return b.broadcast(b.reduce(
        [&](uint32_t t) {
          T s = combine.identity();
          for (int64_t c = t; c < n; c += b.threads()) s = combine(s, f(c));
          return s;
        },
        combine));
  }

  /// log Σ_c exp(x_c) of row xr (0 for nll_loss's log-probabilities).
  template <class Block>
  EMBER_HOST_DEVICE T lse(const Block& b, const T* xr) const {
    if (!l.logits) return T(0);
    const T m = over(
        b, l.C, [&](int64_t c) { return xr[c * l.S]; }, Max<T>{});
    return m + math::log(over(b, l.C, [&](int64_t c) { return math::exp(xr[c * l.S] - m); }));
  }

  template <class Block>
  EMBER_HOST_DEVICE void terms(const Block& b) const {
    const T a = T(1 - l.label_smoothing), bs = T(l.label_smoothing / double(l.C));
    const bool smooth = l.label_smoothing > 0;
    T* out = reinterpret_cast<T*>(l.out);
    T* parts = reinterpret_cast<T*>(l.terms);
    for (int64_t r = b.x(); r < l.R; r += b.blocks_x()) {
      const T* xr = row(r);
      const T z = lse(b, xr);
      const T sm =
          smooth ? -over(b, l.C, [&](int64_t c) { return weight(c) * (xr[c * l.S] - z); }) : T(0);
      b.leader([&] {
        const int64_t t = kept_target(r, true);
        const T wt = t < 0 ? T(0) : weight(t);
        const T nll = t < 0 ? T(0) : -wt * (xr[t * l.S] - z);
        const T smr = t < 0 ? T(0) : sm;
        if (l.reduction == ClassLossLaunch::none) {
          out[r] = smooth ? math::fma(a, nll, bs * smr) : nll;
        } else {
          parts[r] = nll;
          parts[l.R + r] = smr;
          parts[2 * l.R + r] = wt;
        }
      });
    }
  }

  template <class Block>
  EMBER_HOST_DEVICE void total(const Block& b) const {
    const T* parts = reinterpret_cast<const T*>(l.terms);
    const T nll = over(b, l.R, [&](int64_t r) { return parts[r]; });
    const T sm = over(b, l.R, [&](int64_t r) { return parts[l.R + r]; });
    const T wt = over(b, l.R, [&](int64_t r) { return parts[2 * l.R + r]; });
    b.leader([&] {
      const T a = T(1 - l.label_smoothing), bs = T(l.label_smoothing / double(l.C));
      const bool smooth = l.label_smoothing > 0, mean = l.reduction == ClassLossLaunch::mean;
      T v = mean ? a * (nll / wt) : a * nll;
      if (smooth) v = math::fma(bs, mean ? sm / wt : sm, v);
      *reinterpret_cast<T*>(l.out) = v;
    });
  }

  template <class Block>
  EMBER_HOST_DEVICE void weight_sums(const Block& b) const {
    const T kept = over(b, l.R, [&](int64_t r) {
      const int64_t t = kept_target(r, false);
      return t < 0 ? T(0) : weight(t);
    });
    const T classes = w ? over(b, l.C, [&](int64_t c) { return w[c]; }) : T(l.C);
    b.leader([&] {
      reinterpret_cast<T*>(l.sums)[0] = kept;
      reinterpret_cast<T*>(l.sums)[1] = classes;
    });
  }

  // grad_c = (a + b Σw) softmax_c - b w_c, minus a at the target, per position scaled by the
  // reduction's gradient (Note [Fused cross entropy]); 0 at ignored positions.
  template <class Block>
  EMBER_HOST_DEVICE void grad(const Block& b) const {
    const T* g = reinterpret_cast<const T*>(l.grad);
    const T* sums = reinterpret_cast<const T*>(l.sums);
    const T scale = l.reduction == ClassLossLaunch::none   ? T(0)
                    : l.reduction == ClassLossLaunch::mean ? g[0] / sums[0]
                                                           : g[0];
    const T ls = T(l.label_smoothing);
    for (int64_t r = b.x(); r < l.R; r += b.blocks_x()) {
      const T* xr = row(r);
      T* gr = reinterpret_cast<T*>(l.grad_input) + (xr - x);
      const T z = lse(b, xr);
      const int64_t t = kept_target(r, false);
      b.leader([&] { (void)kept_target(r, true); });  // one record per bad position
      const T gs = t < 0 ? T(0) : l.reduction == ClassLossLaunch::none ? g[r] : scale;
      const T a = (T(1) - ls) * (t < 0 ? T(1) : weight(t)) * gs, bs = ls / T(l.C) * gs;
      const T pa = math::fma(bs, sums[1], a);
      b.each_thread([&](uint32_t th) {
        for (int64_t c = th; c < l.C; c += b.threads()) {
          T v = l.logits ? math::exp(xr[c * l.S] - z) * pa - weight(c) * bs : T(0);
          if (c == t) v -= a;
          gr[c * l.S] = t < 0 ? T(0) : v;
        }
      });
    }
  }

  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const ClassLossLaunch& l) {
    const ClassLossBody body{l, reinterpret_cast<const T*>(l.x),
                             reinterpret_cast<const T*>(l.weight)};
    switch (l.pass) {
      case ClassLossLaunch::terms_pass:
        return body.terms(b);
      case ClassLossLaunch::total_pass:
        return body.total(b);
      case ClassLossLaunch::weight_sums_pass:
        return body.weight_sums(b);
      case ClassLossLaunch::grad_pass:
        return body.grad(b);
    }
  }
};

/// The body of l (launch.cuh): float32 and float64.
template <class F>
bool with_body(const ClassLossLaunch& l, F&& f) {
  return with_type_among<float, double>(
      l.type, [&](auto t) { f(Tag<ClassLossBody<typename decltype(t)::type>>{}); });
}

}  // namespace ember::cuda::kernels
