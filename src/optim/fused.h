// The loop every fused optimizer update runs on: one pass over contiguous float32/float64
// buffers, threads over chunks, and the update functor called on Vec<T> for the bulk and on T
// for the tail (Note [Inner loops] in backend/cpu/vec.h), so each update is written once.
#pragma once

#include <cstdint>
#include <string>

#include "backend/cpu/parallel.h"
#include "backend/cpu/vec.h"
#include "ember/error.h"
#include "ember/tensor.h"

namespace ember::optim::detail {

using cpu::is_vec_v;
using cpu::Vec;

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

/// The parameter's dense gradient as a contiguous tensor of the parameter's dtype (a copy only
/// when the gradient is strided or of another dtype).
Tensor dense_grad(const char* op, const Tensor& param);

/// Checks the parameter is contiguous float32/float64 — what the fused kernels read.
void check_param(const char* op, const Tensor& param);

/// A zero-filled state buffer shaped like the parameter (contiguous).
Tensor zeros_like_param(const Tensor& param);

/// Increments a 0-d float32 "step" tensor in float32, as PyTorch's `step_t += 1`, and returns
/// its value (PyTorch's step_t.item()).
double increment_step(Tensor& step);

/// Marks the parameter modified in place (bumps the version counter, as add_/addcdiv_ would).
void mark_updated(const Tensor& param);

}  // namespace ember::optim::detail

namespace ember::optim::detail {

/// Checks a state buffer read from the state dict matches its parameter (dtype, size, layout).
void check_state(const char* op, const Tensor& buf, const Tensor& param, const char* key);

/// Calls f.template operator()<T>() with T = float or double for the parameter's dtype.
template <class F>
void dispatch_float(const char* op, Dtype dtype, const F& f) {
  if (dtype == kFloat32) f.template operator()<float>();
  else if (dtype == kFloat64) f.template operator()<double>();
  else fail(op, "parameters must be float32 or float64, got ", dtype_name(dtype));
}

}  // namespace ember::optim::detail
