// The loop every fused optimizer update runs on (backend/optim_kernels.h): one pass over
// contiguous float32/float64 buffers, threads over chunks, and the update functor called on
// Vec<T> for the bulk and on T for the tail (Note [Inner loops] in backend/cpu/vec.h), so each
// update is written once. The kernels live in optim_{sgd,adam,rmsprop}.cpp.
#pragma once

#include <cstdint>

#include "backend/cpu/level.h"
#include "backend/cpu/optional_data.h"
#include "backend/cpu/vec.h"
#include "backend/optim_kernels.h"
#include "core/parallel.h"
#include "ember/error.h"
#include "ember/tensor.h"

namespace EMBER_CPU_NS {

template <class V, class T>
inline V load(const T* p) {
  if constexpr (is_vec_v<V>) return V::load(p);
  else return *p;
}
template <class V, class T>
inline void store(T* p, V v) {
  if constexpr (is_vec_v<V>) v.store(p);
  else *p = v;
}

/// Calls f.template operator()<V>(i) for i stepping over [0, n): V = Vec<T> over whole vectors,
/// V = T for the tail. f must only touch elements [i, i + width of V).
template <class T, class F>
void fused_for(int64_t n, const F& f) {
  // The update reads and writes ~4 buffers per element; a smaller grain than elementwise ops
  // still pays for the threads.
  parallel_for(0, n, 16384, [&](int64_t begin, int64_t end) {
    constexpr int W = Vec<T>::size;
    int64_t i = begin;
    for (; i + W <= end; i += W) f.template operator()<Vec<T>>(i);
    for (; i < end; ++i) f.template operator()<T>(i);
  });
}

/// Calls f.template operator()<T>() with T = float or double for the parameter's dtype (the
/// front end has checked it is one of them).
template <class F>
void dispatch_param(const char* op, Dtype dtype, const F& f) {
  if (dtype == kFloat32) f.template operator()<float>();
  else if (dtype == kFloat64) f.template operator()<double>();
  else fail(op, "parameters must be float32 or float64, got ", dtype_name(dtype));
}

void sgd_update(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                const backend::SgdStep& s);
void adam_update(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                 const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq,
                 const backend::AdamStep& s);
void adamax_update(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                   const Tensor& exp_inf, const backend::AdamaxStep& s);
void nadam_update(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                  const Tensor& exp_avg_sq, const backend::NAdamStep& s);
void radam_update(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                  const Tensor& exp_avg_sq, const backend::RAdamStep& s);
void rmsprop_update(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                    const Tensor& grad_avg, const Tensor& momentum_buffer,
                    const backend::RMSpropStep& s);
void adagrad_update(const Tensor& param, const Tensor& grad, const Tensor& sum,
                    const backend::AdagradStep& s);

}  // namespace EMBER_CPU_NS
