// softmax and log_softmax along one dim, numerically stable (shifted by the max), SIMD through
// SLEEF exp; and the scans cumsum/cumprod. The input is viewed as (outer, D, inner).
#include <algorithm>
#include <cmath>
#include <limits>

#include "autograd/function.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/vec.h"
#include "core/dispatch.h"
#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/math.h"
#include "ember/shape.h"

namespace ember {
namespace {

using cpu::Vec;

struct Shape3 {
  int64_t outer = 1, D = 1, inner = 1;
};

Shape3 split_at(const Tensor& t, int64_t dim) {
  Shape3 s;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d < dim) s.outer *= t.sizes()[d];
    else if (d == dim) s.D = t.sizes()[d];
    else s.inner *= t.sizes()[d];
  }
  return s;
}

// One contiguous row of D values (inner == 1): the hot case (attention, classifier logits).
template <class T, bool Log>
void softmax_row(const T* x, T* y, int64_t D) {
  constexpr int W = Vec<T>::size;
  int64_t i = 0;
  T mx = -std::numeric_limits<T>::infinity();
  if (D >= W) {
    Vec<T> vm = Vec<T>::load(x);
    for (i = W; i + W <= D; i += W) vm = cpu::vmax(vm, Vec<T>::load(x + i));
    for (int k = 0; k < W; ++k) mx = cpu::vmax(mx, vm[k]);
  }
  for (; i < D; ++i) mx = cpu::vmax(mx, x[i]);
  // An all -inf row (fully masked) yields NaN like PyTorch; a +inf max also gives NaN.
  const T shift = mx;
  T sum = 0;
  i = 0;
  Vec<T> vs(T(0));
  for (; i + W <= D; i += W) {
    const Vec<T> e = cpu::exp(Vec<T>::load(x + i) - Vec<T>(shift));
    if constexpr (!Log) e.store(y + i);
    vs = vs + e;
  }
  for (int k = 0; k < W; ++k) sum += vs[k];
  for (; i < D; ++i) {
    const T e = std::exp(x[i] - shift);
    if constexpr (!Log) y[i] = e;
    sum += e;
  }
  if constexpr (Log) {
    // (x - max) - log(sum), as PyTorch: folding max + log(sum) into one constant first would
    // round away log(sum) next to a large max.
    const T lse = std::log(sum);
    for (i = 0; i + W <= D; i += W)
      (Vec<T>::load(x + i) - Vec<T>(shift) - Vec<T>(lse)).store(y + i);
    for (; i < D; ++i) y[i] = x[i] - shift - lse;
  } else {
    const T inv = T(1) / sum;
    for (i = 0; i + W <= D; i += W) (Vec<T>::load(y + i) * Vec<T>(inv)).store(y + i);
    for (; i < D; ++i) y[i] = y[i] * inv;
  }
}

// (D, inner) block: softmax down each column, SIMD across columns (the last partial vector of
// columns in scalar code). Column tiles keep the running max and sum in L1.
template <class T, bool Log>
void softmax_columns(const T* x, T* y, int64_t D, int64_t inner) {
  constexpr int W = Vec<T>::size;
  constexpr int64_t kTile = 256;
  T mx[kTile], sum[kTile];
  for (int64_t j0 = 0; j0 < inner; j0 += kTile) {
    const int64_t w = std::min(kTile, inner - j0), wv = w / W * W;
    std::fill(mx, mx + w, -std::numeric_limits<T>::infinity());
    std::fill(sum, sum + w, T(0));
    for (int64_t d = 0; d < D; ++d) {
      const T* row = x + d * inner + j0;
      int64_t j = 0;
      for (; j < wv; j += W) cpu::vmax(Vec<T>::load(mx + j), Vec<T>::load(row + j)).store(mx + j);
      for (; j < w; ++j) mx[j] = cpu::vmax(mx[j], row[j]);
    }
    for (int64_t d = 0; d < D; ++d) {
      const T* row = x + d * inner + j0;
      T* out = y + d * inner + j0;
      int64_t j = 0;
      for (; j < wv; j += W) {
        const Vec<T> e = cpu::exp(Vec<T>::load(row + j) - Vec<T>::load(mx + j));
        if constexpr (!Log) e.store(out + j);
        (Vec<T>::load(sum + j) + e).store(sum + j);
      }
      for (; j < w; ++j) {
        const T e = std::exp(row[j] - mx[j]);
        if constexpr (!Log) out[j] = e;
        sum[j] += e;
      }
    }
    // softmax scales by 1/sum, log_softmax subtracts max then log(sum), both as PyTorch.
    for (int64_t j = 0; j < w; ++j) sum[j] = Log ? std::log(sum[j]) : T(1) / sum[j];
    for (int64_t d = 0; d < D; ++d) {
      const T* row = x + d * inner + j0;
      T* out = y + d * inner + j0;
      int64_t j = 0;
      for (; j < wv; j += W) {
        if constexpr (Log)
          (Vec<T>::load(row + j) - Vec<T>::load(mx + j) - Vec<T>::load(sum + j)).store(out + j);
        else
          (Vec<T>::load(out + j) * Vec<T>::load(sum + j)).store(out + j);
      }
      for (; j < w; ++j) out[j] = Log ? row[j] - mx[j] - sum[j] : out[j] * sum[j];
    }
  }
}

template <bool Log>
Tensor softmax_impl(const Tensor& self, int64_t dim, std::optional<Dtype> dtype, const char* op) {
  Tensor x = dtype ? self.to(*dtype) : self;
  EMBER_CHECK(x.is_floating_point(), op, "not implemented for dtype ", x.dtype());
  const Dtype out_dtype = x.dtype();
  if (out_dtype == kFloat16 || out_dtype == kBFloat16) x = x.to(kFloat32);  // compute in float
  dim = wrap_dim(dim, x.dim(), op);
  x = x.contiguous();
  Tensor y = empty(x.sizes(), {.dtype = x.dtype()});
  const Shape3 s = split_at(x, x.dim() == 0 ? 0 : dim);
  dispatch<DtypeSet::Floating>(x.dtype(), op, [&]<class T>() {
    if constexpr (cpu::simd_type_v<T>) {
      const T* xp = x.data_ptr<T>();
      T* yp = y.data_ptr<T>();
      const int64_t block = s.D * s.inner;
      if (s.inner == 1) {
        parallel_for(0, s.outer, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(s.D, 1)),
                     [&](int64_t a, int64_t b) {
                       for (int64_t o = a; o < b; ++o)
                         softmax_row<T, Log>(xp + o * block, yp + o * block, s.D);
                     });
      } else {
        parallel_for(0, s.outer, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(block, 1)),
                     [&](int64_t a, int64_t b) {
                       for (int64_t o = a; o < b; ++o)
                         softmax_columns<T, Log>(xp + o * block, yp + o * block, s.D, s.inner);
                     });
      }
    }
  });
  return y.dtype() == out_dtype ? y : y.to(out_dtype);
}

template <bool Prod>
Tensor scan_impl(const Tensor& self, int64_t dim, std::optional<Dtype> dtype, const char* op) {
  // Integers accumulate into int64, as PyTorch's cumsum/cumprod.
  const Dtype out_dtype = dtype.value_or(is_integral(self.dtype(), true) ? kInt64 : self.dtype());
  const Tensor x = self.to(out_dtype).contiguous();
  dim = wrap_dim(dim, x.dim(), op);
  Tensor y = empty(x.sizes(), {.dtype = out_dtype});
  const Shape3 s = split_at(x, x.dim() == 0 ? 0 : dim);
  dispatch<DtypeSet::Numeric>(out_dtype, op, [&]<class T>() {
    // Floats accumulate in double (PyTorch's CPU acc_type), then round once per output.
    using Acc = std::conditional_t<std::is_floating_point_v<compute_t<T>>, double, T>;
    const T* xp = x.data_ptr<T>();
    T* yp = y.data_ptr<T>();
    parallel_for(0, s.outer * s.inner, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(s.D, 1)),
                 [&](int64_t a, int64_t b) {
                   for (int64_t l = a; l < b; ++l) {
                     const int64_t o = l / s.inner, j = l % s.inner;
                     const int64_t base = o * s.D * s.inner + j;
                     Acc acc = Prod ? Acc(1) : Acc(0);
                     for (int64_t d = 0; d < s.D; ++d) {
                       const Acc v = Acc(compute_t<T>(xp[base + d * s.inner]));
                       acc = Prod ? Acc(acc * v) : Acc(acc + v);
                       yp[base + d * s.inner] = T(compute_t<T>(acc));
                     }
                   }
                 });
  });
  return y;
}

}  // namespace

namespace {

using autograd::Grads;
using autograd::Recorder;
using autograd::Saved;
using autograd::TensorList;

// Backward formulas in differentiable ops (so double backward works); dims are wrapped, and a
// 0-d tensor is its own single-element line.
Tensor softmax_recorded(const Tensor& self, int64_t dim, std::optional<Dtype> dtype, bool log) {
  const char* op = log ? "log_softmax" : "softmax";
  Recorder rec(op, {&self});
  Tensor y = log ? softmax_impl<true>(self, dim, dtype, op) : softmax_impl<false>(self, dim, dtype, op);
  if (rec) {
    const int64_t d = self.dim() == 0 ? 0 : wrap_dim(dim, self.dim(), op);
    if (log)
      rec.record("LogSoftmaxBackward0", {y}, {},
                 [d](const Grads& g, const Saved& s) {
                   return TensorList{g[0] - s[0].exp() * g[0].sum(d, true)};
                 },
                 {y});
    else
      rec.record("SoftmaxBackward0", {y}, {},
                 [d](const Grads& g, const Saved& s) {
                   return TensorList{s[0] * (g[0] - (g[0] * s[0]).sum(d, true))};
                 },
                 {y});
  }
  return y;
}

// sum_{j >= i} w_j along dim, without a flip: total - inclusive prefix + w.
Tensor reversed_cumsum(const Tensor& w, int64_t dim) {
  if (w.dim() == 0) return w;
  return w.sum(dim, true) - w.cumsum(dim) + w;
}

// With zeros and create_graph, PyTorch's O(n²) form, whose own derivative is right:
// grad_input[k] = Σ_{j ≥ k} grad[j] Π_{i ≤ j, i ≠ k} input[i], from differentiable ops (row k of
// `others` is the cumulative product with input[k] read as 1).
Tensor cumprod_backward_differentiable(const Tensor& grad, const Tensor& input, int64_t dim) {
  const int64_t n = input.size(dim);
  const Tensor x = input.transpose(dim, -1), g = grad.transpose(dim, -1);
  const Tensor k = arange(n, {.dtype = kInt64});
  const Tensor others = where(eye(n, {.dtype = kBool}), 1.0, x.unsqueeze(-2)).cumprod(-1);
  const Tensor upper = k.unsqueeze(1).le(k.unsqueeze(0));  // [k, j]: j >= k
  return (others * g.unsqueeze(-2) * upper).sum(-1).transpose(dim, -1);
}

// PyTorch's cumprod_backward: without zeros, reversed_cumsum(grad * output) / input; with
// zeros, only the elements up to each line's first zero get a gradient: before it the same
// formula, at it the products of the others (the cumulative product with that zero taken as 1).
Tensor cumprod_backward(const Tensor& grad, const Tensor& input, int64_t dim, const Tensor& output) {
  if (input.numel() <= 1 || input.dim() == 0) return grad;
  const Tensor is_zero = input.eq(0);
  if (!is_zero.any().item<bool>()) return reversed_cumsum(grad * output, dim).div(input);
  if (is_grad_enabled()) return cumprod_backward_differentiable(grad, input, dim);
  const Tensor zeros_so_far = is_zero.cumsum(dim);                       // int64
  const Tensor before = zeros_so_far.eq(0);                              // before the first zero
  const Tensor first_zero = logical_and(is_zero, zeros_so_far.eq(1));
  const Tensor safe = where(before, input, 1.0);
  const Tensor part_before = where(before, reversed_cumsum(grad * output, dim) / safe, 0.0);
  const Tensor others = where(first_zero, 1.0, input).cumprod(dim);  // the first zero as 1
  const Tensor part_zero = where(first_zero, reversed_cumsum(grad * others * logical_not(before), dim), 0.0);
  return part_before + part_zero;
}

Tensor scan_recorded(const Tensor& self, int64_t dim, std::optional<Dtype> dtype, bool prod) {
  const char* op = prod ? "cumprod" : "cumsum";
  Recorder rec(op, {&self});
  Tensor y = prod ? scan_impl<true>(self, dim, dtype, op) : scan_impl<false>(self, dim, dtype, op);
  if (rec) {
    const int64_t d = self.dim() == 0 ? 0 : wrap_dim(dim, self.dim(), op);
    if (prod)
      rec.record("CumprodBackward0", {y}, {self},
                 [d](const Grads& g, const Saved& s) {
                   return TensorList{cumprod_backward(g[0], s[0], d, s[1])};
                 },
                 {y});
    else
      rec.record("CumsumBackward0", {y}, {}, [d](const Grads& g, const Saved&) {
        return TensorList{reversed_cumsum(g[0], d)};
      });
  }
  return y;
}

}  // namespace

Tensor softmax(const Tensor& t, int64_t dim, std::optional<Dtype> dtype) {
  return softmax_recorded(t, dim, dtype, false);
}
Tensor log_softmax(const Tensor& t, int64_t dim, std::optional<Dtype> dtype) {
  return softmax_recorded(t, dim, dtype, true);
}
Tensor Tensor::softmax(int64_t dim, std::optional<Dtype> dtype) const {
  return softmax_recorded(*this, dim, dtype, false);
}
Tensor Tensor::log_softmax(int64_t dim, std::optional<Dtype> dtype) const {
  return softmax_recorded(*this, dim, dtype, true);
}
Tensor Tensor::cumsum(int64_t dim, std::optional<Dtype> dtype) const {
  return scan_recorded(*this, dim, dtype, false);
}
Tensor Tensor::cumprod(int64_t dim, std::optional<Dtype> dtype) const {
  return scan_recorded(*this, dim, dtype, true);
}

}  // namespace ember
