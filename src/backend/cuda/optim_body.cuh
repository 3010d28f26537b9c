// The fused optimizer updates' work (SGD, the Adam family, RMSprop, Adagrad), for the device
// (optim.cu) and the CPU emulation (optim_emulation.cpp) alike: one grid-stride pass that reads
// param, grad and the state buffers once and writes them once, in the CPU kernels' operation
// order (backend/cpu/optim_*.cpp: PyTorch's _single_tensor_* step by step), each
// scalar rounded to the parameter's dtype once. Every a * b + c is an explicit fma: nvcc would
// contract it anyway (--fmad=true), and spelled out the emulation rounds as the device does.
#pragma once

#include <cstdint>

#include "backend/cuda/block.cuh"
#include "backend/cuda/optim_launch.h"

namespace ember::cuda::kernels {

/// SGD: d = ±grad + wd p; buf = first ? d : momentum buf + (1 - dampening) d;
/// d = nesterov ? d + momentum buf : buf; p -= lr d.
template <class T>
struct SgdUpdate {
  const OptimLaunch& l;
  EMBER_HOST_DEVICE void operator()(int64_t i) const {
    const T lr = T(l.lr), wd = T(l.weight_decay), momentum = T(l.momentum);
    const T one_minus_damp = T(1 - l.dampening);  // rounded once, as PyTorch's alpha
    T* p = reinterpret_cast<T*>(l.param) + i;
    T d = reinterpret_cast<const T*>(l.grad)[i];
    if (l.maximize) d = -d;
    if (wd != T(0)) d = math::fma(wd, *p, d);
    if (l.momentum_buffer) {
      T* buf = reinterpret_cast<T*>(l.momentum_buffer) + i;
      const T b = l.first ? d : math::fma(*buf, momentum, one_minus_damp * d);
      *buf = b;
      d = l.nesterov ? math::fma(momentum, b, d) : b;
    }
    *p = math::fma(-lr, d, *p);
  }
};

/// ±grad, plus l2 * p when the step has an L2 term (every update but SGD's, which has its own).
template <class T>
EMBER_HOST_DEVICE T signed_grad(const OptimLaunch& l, int64_t i, T p) {
  T g = reinterpret_cast<const T*>(l.grad)[i];
  if (l.maximize) g = -g;
  if (T(l.l2) != T(0)) g = math::fma(T(l.l2), p, g);  // as the CPU: the rounded value
  return g;
}

/// The Adam family's two moments, written back: m = beta1 m + (1 - beta1) g,
/// v = beta2 v + (1 - beta2) g g.
template <class T>
struct Moments {
  T m, v;
};
template <class T>
EMBER_HOST_DEVICE Moments<T> update_moments(const OptimLaunch& l, int64_t i, T g) {
  T* m = reinterpret_cast<T*>(l.exp_avg) + i;
  T* v = reinterpret_cast<T*>(l.exp_avg_sq) + i;
  *m = math::fma(*m, T(l.beta1), T(1 - l.beta1) * g);
  *v = math::fma(*v, T(l.beta2), T(1 - l.beta2) * g * g);
  return {*m, *v};
}

/// Adam/AdamW: the moments (amsgrad: the largest v so far); p += neg_step_size m /
/// (sqrt(v) / bc2_sqrt + eps), after AdamW's p *= decay.
template <class T>
struct AdamUpdate {
  const OptimLaunch& l;
  EMBER_HOST_DEVICE void operator()(int64_t i) const {
    T* p = reinterpret_cast<T*>(l.param) + i;
    T pi = *p;
    if (l.decoupled) pi = pi * T(l.decay);
    const Moments<T> mv = update_moments(l, i, signed_grad(l, i, pi));
    T denom_of = mv.v;
    if (l.max_exp_avg_sq) {  // amsgrad: NaN-propagating max, as torch.maximum
      T* vmax = reinterpret_cast<T*>(l.max_exp_avg_sq) + i;
      denom_of = *vmax = Max<T>{}(*vmax, denom_of);
    }
    const T denom = math::sqrt(denom_of) / T(l.bc2_sqrt) + T(l.eps);
    *p = math::fma(T(l.neg_step_size), mv.m / denom, pi);
  }
};

/// Adamax: m as Adam's; u = max(beta2 u, |g| + eps) (NaN-propagating, as torch.amax);
/// p += neg_clr m / u.
template <class T>
struct AdamaxUpdate {
  const OptimLaunch& l;
  EMBER_HOST_DEVICE void operator()(int64_t i) const {
    T* p = reinterpret_cast<T*>(l.param) + i;
    T* m = reinterpret_cast<T*>(l.exp_avg) + i;
    T* u = reinterpret_cast<T*>(l.exp_avg_sq) + i;
    const T g = signed_grad(l, i, *p);
    *m = math::fma(*m, T(l.beta1), T(1 - l.beta1) * g);
    *u = Max<T>{}(*u * T(l.beta2), math::fabs(g) + T(l.eps));
    *p = math::fma(T(l.neg_clr), *m / *u, *p);
  }
};

/// NAdam: the moments; denom = sqrt(v / bias_correction2) + eps; p += grad_coef g / denom, then
/// p += avg_coef m / denom (PyTorch's two addcdiv_ calls, in order).
template <class T>
struct NAdamUpdate {
  const OptimLaunch& l;
  EMBER_HOST_DEVICE void operator()(int64_t i) const {
    T* p = reinterpret_cast<T*>(l.param) + i;
    const T g = signed_grad(l, i, *p);
    const Moments<T> mv = update_moments(l, i, g);
    const T denom = math::sqrt(mv.v / T(l.bias_correction2)) + T(l.eps);
    const T pi = math::fma(T(l.grad_coef), g / denom, *p);
    *p = math::fma(T(l.avg_coef), mv.m / denom, pi);
  }
};

/// RAdam: the moments; m̂ = m / bias_correction1; p -= m̂ lr, times the adaptive term
/// (1 / (sqrt(v) + eps)) bc2_sqrt and rect when the variance is tractable.
template <class T>
struct RAdamUpdate {
  const OptimLaunch& l;
  EMBER_HOST_DEVICE void operator()(int64_t i) const {
    T* p = reinterpret_cast<T*>(l.param) + i;
    const Moments<T> mv = update_moments(l, i, signed_grad(l, i, *p));
    const T corrected = mv.m / T(l.bias_correction1), lr = T(l.lr);
    if (l.rectify) {
      // PyTorch: sqrt(bc2) / (sqrt(v) + eps) is a scalar over a tensor: reciprocal, then times.
      const T adaptive = (T(1) / (math::sqrt(mv.v) + T(l.eps))) * T(l.bc2_sqrt);
      *p = math::fma(-(corrected * lr * adaptive), T(l.rect), *p);
    } else {
      *p = math::fma(-corrected, lr, *p);
    }
  }
};

/// RMSprop: sq = alpha sq + (1 - alpha) g g; avg = sqrt(sq [- ga ga, ga = alpha ga + (1 - alpha)
/// g when centered]) + eps; momentum ? (buf = momentum buf + g / avg; p -= lr buf) :
/// p -= lr g / avg.
template <class T>
struct RMSpropUpdate {
  const OptimLaunch& l;
  EMBER_HOST_DEVICE void operator()(int64_t i) const {
    const T alpha = T(l.alpha), one_minus_alpha = T(1 - l.alpha), neg_lr = -T(l.lr);
    T* p = reinterpret_cast<T*>(l.param) + i;
    T* sq = reinterpret_cast<T*>(l.square_avg) + i;
    const T g = signed_grad(l, i, *p);
    *sq = math::fma(*sq, alpha, one_minus_alpha * g * g);
    T avg;
    if (l.grad_avg) {  // centered: subtract the squared mean gradient (addcmul with value -1)
      T* ga = reinterpret_cast<T*>(l.grad_avg) + i;
      *ga = math::fma(*ga, alpha, one_minus_alpha * g);
      avg = math::sqrt(math::fma(-*ga, *ga, *sq));
    } else {
      avg = math::sqrt(*sq);
    }
    avg = avg + T(l.eps);
    if (l.momentum_buffer) {
      T* buf = reinterpret_cast<T*>(l.momentum_buffer) + i;
      *buf = math::fma(*buf, T(l.momentum), g / avg);
      *p = math::fma(neg_lr, *buf, *p);
    } else {
      *p = math::fma(neg_lr, g / avg, *p);
    }
  }
};

/// Adagrad: sum += g g; p += neg_clr g / (sqrt(sum) + eps).
template <class T>
struct AdagradUpdate {
  const OptimLaunch& l;
  EMBER_HOST_DEVICE void operator()(int64_t i) const {
    T* p = reinterpret_cast<T*>(l.param) + i;
    T* sum = reinterpret_cast<T*>(l.sum) + i;
    const T g = signed_grad(l, i, *p);
    *sum = math::fma(g, g, *sum);
    *p = math::fma(T(l.neg_clr), g / (math::sqrt(*sum) + T(l.eps)), *p);
  }
};

template <class T>
struct OptimBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const OptimLaunch& l) {
    switch (l.op) {
      case OptimOp::sgd: return grid_stride(b, l.numel, SgdUpdate<T>{l});
      case OptimOp::adam: return grid_stride(b, l.numel, AdamUpdate<T>{l});
      case OptimOp::adamax: return grid_stride(b, l.numel, AdamaxUpdate<T>{l});
      case OptimOp::nadam: return grid_stride(b, l.numel, NAdamUpdate<T>{l});
      case OptimOp::radam: return grid_stride(b, l.numel, RAdamUpdate<T>{l});
      case OptimOp::rmsprop: return grid_stride(b, l.numel, RMSpropUpdate<T>{l});
      case OptimOp::adagrad: return grid_stride(b, l.numel, AdagradUpdate<T>{l});
    }
  }
};

/// The body of l (launch.cuh): float32 and float64.
template <class F>
bool with_body(const OptimLaunch& l, F&& f) {
  return with_type_among<float, double>(
      l.type, [&](auto t) { f(Tag<OptimBody<typename decltype(t)::type>>{}); });
}

}  // namespace ember::cuda::kernels
