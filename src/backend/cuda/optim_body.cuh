// The fused optimizer updates' work (SGD, Adam/AdamW), for the device (optim.cu) and the CPU
// emulation (optim_emulation.cpp) alike: one grid-stride pass that reads param, grad and the
// state buffers once and writes them once, in the CPU kernels' operation order
// (backend/cpu/optim_sgd.cpp, optim_adam.cpp: PyTorch's _single_tensor_* step by step), each
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

/// Adam/AdamW: m = beta1 m + (1 - beta1) g; v = beta2 v + (1 - beta2) g g (amsgrad: the largest
/// v so far); p += neg_step_size m / (sqrt(v) / bc2_sqrt + eps), after AdamW's p *= decay.
template <class T>
struct AdamUpdate {
  const OptimLaunch& l;
  EMBER_HOST_DEVICE void operator()(int64_t i) const {
    const T beta1 = T(l.beta1), beta2 = T(l.beta2);
    const T one_minus_beta1 = T(1 - l.beta1), one_minus_beta2 = T(1 - l.beta2);
    const T l2 = T(l.l2), decay = T(l.decay), bc2_sqrt = T(l.bc2_sqrt), eps = T(l.eps);
    T* p = reinterpret_cast<T*>(l.param) + i;
    T* m = reinterpret_cast<T*>(l.exp_avg) + i;
    T* v = reinterpret_cast<T*>(l.exp_avg_sq) + i;
    T pi = *p, g = reinterpret_cast<const T*>(l.grad)[i];
    if (l.maximize) g = -g;
    if (l.decoupled) pi = pi * decay;
    if (l2 != T(0)) g = math::fma(l2, pi, g);
    *m = math::fma(*m, beta1, one_minus_beta1 * g);
    *v = math::fma(*v, beta2, one_minus_beta2 * g * g);
    T denom_of = *v;
    if (l.max_exp_avg_sq) {  // amsgrad: NaN-propagating max, as torch.maximum
      T* vmax = reinterpret_cast<T*>(l.max_exp_avg_sq) + i;
      denom_of = *vmax = Max<T>{}(*vmax, denom_of);
    }
    const T denom = math::sqrt(denom_of) / bc2_sqrt + eps;
    *p = math::fma(T(l.neg_step_size), *m / denom, pi);
  }
};

template <class T>
struct OptimBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const OptimLaunch& l) {
    if (l.op == OptimOp::sgd)
      grid_stride(b, l.numel, SgdUpdate<T>{l});
    else
      grid_stride(b, l.numel, AdamUpdate<T>{l});
  }
};

/// The body of l (launch.cuh): float32 and float64.
template <class F>
bool with_body(const OptimLaunch& l, F&& f) {
  return with_type_among<float, double>(
      l.type, [&](auto t) { f(Tag<OptimBody<typename decltype(t)::type>>{}); });
}

}  // namespace ember::cuda::kernels
