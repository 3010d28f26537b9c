// CPU kernels of the class-index losses (src/ops/loss.cpp: cross_entropy and nll_loss with
// integer targets): log-sum-exp, the loss and its gradient fused over rows or blocks of
// positions (Note [Fused cross entropy]).
#include <algorithm>
#include <cmath>

#include "backend/buffers.h"
#include "backend/cpu/kernels.h"
#include "backend/cpu/vec.h"
#include "core/dispatch.h"
#include "core/parallel.h"

namespace ember::cpu {
namespace {

using backend::ClassLossCall;
using Reduction = backend::LossReduction;

// Note [Fused cross entropy]
// Logits (N, C, d1, ...) are read in place as (N, C, S), S = d1 * ...; position r = n S + s has
// the C logits x[n, :, s]. One pass finds the max, one sums exp(x - max) in SIMD lanes, giving
// lse = max + log(sum); the loss of target t is -w[t] (x[t] - lse), and label smoothing adds
// -Σ_c w_c (x_c - lse) in a third pass. With S == 1 a position is a contiguous row and SIMD runs
// along the classes; with S > 1 SIMD runs across kBlock neighbouring positions (the passes then
// re-read a (C, kBlock) tile from L1). The gradient is softmax - smoothed one-hot, scaled by the
// weights and the reduction. nll_loss is the same kernel with lse = 0 (log-probability input).
constexpr int64_t kBlock = 256;

// A NaN or +inf logit, or an all -inf row, gives NaN, as log_softmax does.
template <class T>
T row_lse(const T* x, int64_t C) {
  constexpr int W = Vec<T>::size;
  const T mx = row_max(x, C);
  Vec<T> vs(T(0));
  int64_t i = 0;
  for (; i + W <= C; i += W) vs = vs + exp(Vec<T>::load(x + i) - Vec<T>(mx));
  T s = hsum(vs);
  for (; i < C; ++i) s += std::exp(x[i] - mx);
  return mx + std::log(s);
}

// Σ_c w_c (x_c - lse), w null meaning 1.
template <class T>
T row_shifted_sum(const T* x, const T* w, int64_t C, T lse) {
  constexpr int W = Vec<T>::size;
  Vec<T> acc(T(0));
  int64_t i = 0;
  for (; i + W <= C; i += W) {
    const Vec<T> d = Vec<T>::load(x + i) - Vec<T>(lse);
    acc = acc + (w ? d * Vec<T>::load(w + i) : d);
  }
  T s = hsum(acc);
  for (; i < C; ++i) s += (w ? w[i] : T(1)) * (x[i] - lse);
  return s;
}

// lse of `len` neighbouring positions: x points at x[n, 0, s0], classes S apart.
template <class T>
void column_lse(const T* x, int64_t C, int64_t S, int64_t len, T* lse) {
  constexpr int W = Vec<T>::size;
  int64_t j = 0;
  for (; j + W <= len; j += W) {
    Vec<T> m = Vec<T>::load(x + j);
    for (int64_t c = 1; c < C; ++c) m = vmax(m, Vec<T>::load(x + c * S + j));
    Vec<T> s(T(0));
    for (int64_t c = 0; c < C; ++c) s = s + exp(Vec<T>::load(x + c * S + j) - m);
    (m + log(s)).store(lse + j);
  }
  for (; j < len; ++j) {
    T m = x[j];
    for (int64_t c = 1; c < C; ++c) m = vmax(m, x[c * S + j]);
    T s = 0;
    for (int64_t c = 0; c < C; ++c) s += std::exp(x[c * S + j] - m);
    lse[j] = m + std::log(s);
  }
}

// acc[j] = Σ_c w_c (x[c, j] - lse[j]) for the positions of column_lse.
template <class T>
void column_shifted_sum(const T* x, const T* w, int64_t C, int64_t S, int64_t len, const T* lse,
                        T* acc) {
  constexpr int W = Vec<T>::size;
  std::fill(acc, acc + len, T(0));
  for (int64_t c = 0; c < C; ++c) {
    const T wc = w ? w[c] : T(1);
    const T* xc = x + c * S;
    int64_t j = 0;
    for (; j + W <= len; j += W)
      (Vec<T>::load(acc + j) + (Vec<T>::load(xc + j) - Vec<T>::load(lse + j)) * Vec<T>(wc))
          .store(acc + j);
    for (; j < len; ++j) acc[j] += wc * (xc[j] - lse[j]);
  }
}

// A call's (N, C, S) positions, with its targets checked, and its options.
struct ClassRows {
  const Tensor& x;             // (N, C, S)
  const Tensor& w;             // (C) or undefined
  const int64_t* t = nullptr;  // (N * S) targets
  int64_t R = 0;               // positions: N * S
  int64_t N = 0, C = 0, S = 1;
  int64_t ignore = 0;          // ignore_index
  double ls = 0;               // label_smoothing
  bool smooth = false, logits = false;
  Reduction red = Reduction::None;
};

ClassRows class_rows(const ClassLossCall& c) {
  ClassRows p{c.x, c.weight};
  p.N = c.x.size(0), p.C = c.x.size(1), p.S = c.x.size(2);
  p.ignore = c.ignore_index, p.ls = c.label_smoothing, p.smooth = p.ls > 0;
  p.logits = c.logits, p.red = c.reduction;
  p.t = c.target.data_ptr<int64_t>();
  p.R = c.target.numel();
  // Checked in order, so the error names the first bad target as PyTorch's loop does.
  for (int64_t r = 0; r < p.R; ++r)
    EMBER_CHECK(p.t[r] == c.ignore_index || (p.t[r] >= 0 && p.t[r] < p.C), c.op, "Target ",
                p.t[r], " is out of bounds.");
  return p;
}

// Calls f(n, s0, len) for blocks of positions: one position per call when S == 1 (f reads a
// contiguous row), else up to kBlock neighbours.
template <class F>
void for_blocks(const ClassRows& p, const F& f) {
  const int64_t nb = (p.S + kBlock - 1) / kBlock;
  const int64_t work = p.S == 1 ? p.C : p.C * std::min(kBlock, p.S);
  parallel_for(0, p.N * nb, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(work, 1)),
               [&](int64_t a, int64_t b) {
                 for (int64_t i = a; i < b; ++i) {
                   const int64_t s0 = (i % nb) * kBlock;
                   f(i / nb, s0, std::min(kBlock, p.S - s0));
                 }
               });
}

// Per-position losses: nll = -w[t] (x[t] - lse), smooth = -Σ_c w_c (x_c - lse), wt = w[t]; all
// zero at ignored positions.
template <class T>
void class_rows_forward(const ClassRows& p, int64_t ignore, bool logits, bool smooth, T* nll,
                        T* sm, T* wt) {
  const int64_t C = p.C, S = p.S;
  const T* x = p.x.data_ptr<T>();
  const T* w = p.w.defined() ? p.w.data_ptr<T>() : nullptr;
  for_blocks(p, [&](int64_t n, int64_t s0, int64_t len) {
    const T* xb = x + n * C * S + s0;  // x[n, 0, s0]
    alignas(64) T lse[kBlock], acc[kBlock];
    if (!logits) {
      std::fill(lse, lse + len, T(0));
    } else if (S == 1) {
      lse[0] = row_lse(xb, C);
    } else {
      column_lse(xb, C, S, len, lse);
    }
    if (smooth) {
      if (S == 1) acc[0] = row_shifted_sum(xb, w, C, lse[0]);
      else column_shifted_sum(xb, w, C, S, len, lse, acc);
    }
    for (int64_t j = 0; j < len; ++j) {
      const int64_t r = n * S + s0 + j, t = p.t[r];
      if (t == ignore) {
        nll[r] = sm[r] = wt[r] = T(0);
        continue;
      }
      const T wr = w ? w[t] : T(1);
      nll[r] = -wr * (xb[t * S + j] - lse[j]);
      wt[r] = wr;
      sm[r] = smooth ? -acc[j] : T(0);
    }
  });
}

// The loss from per-position terms: (1 - ls) nll + (ls / C) smooth, reduced. For "mean" both
// terms are divided by the total weight of the non-ignored targets, as PyTorch 1.13.
void class_loss_kernel(const ClassLossCall& c, const Tensor& out) {
  const ClassRows p = class_rows(c);
  const int64_t R = p.R;
  const Dtype cd = p.x.dtype();
  dispatch<DtypeSet::Floating>(cd, c.op, [&]<class T>() {
    if constexpr (simd_type_v<T>) {
      // Per-position terms in tensors: the caching allocator spares fresh pages each call.
      Tensor buf = backend::new_buffer({3, R}, cd);
      T* nll = buf.data_ptr<T>();
      T* sm = nll + R;
      T* wt = sm + R;
      class_rows_forward<T>(p, p.ignore, p.logits, p.smooth, nll, sm, wt);
      const double a = 1.0 - (p.smooth ? p.ls : 0.0), b = p.smooth ? p.ls / double(p.C) : 0.0;
      if (p.red == Reduction::None) {
        T* o = out.data_ptr<T>();
        for (int64_t r = 0; r < R; ++r)
          o[r] = p.smooth ? T(a * double(nll[r]) + b * double(sm[r])) : nll[r];
        return;
      }
      double s_nll = 0, s_sm = 0, s_w = 0;
      for (int64_t r = 0; r < R; ++r) {
        s_nll += double(nll[r]);
        s_sm += double(sm[r]);
        s_w += double(wt[r]);
      }
      double v = a * s_nll + b * s_sm;
      if (p.red == Reduction::Mean) v = a * (s_nll / s_w) + (p.smooth ? b * (s_sm / s_w) : 0.0);
      *out.data_ptr<T>() = T(v);
    }
  });
}

// d(loss)/d(x): at each position g (the reduction's scale), a = (1 - ls) w[t] g, b = ls / C g:
// grad_c = (a + b Σw) softmax_c - b w_c, minus a at c = t (log-prob input: just -a at t).
void class_loss_backward_kernel(const ClassLossCall& c, const Tensor& gx, const Tensor& grad) {
  const ClassRows p = class_rows(c);
  const int64_t C = p.C, S = p.S;
  dispatch<DtypeSet::Floating>(p.x.dtype(), c.op, [&]<class T>() {
    if constexpr (simd_type_v<T>) {
      const T* x = p.x.data_ptr<T>();
      const T* w = p.w.defined() ? p.w.data_ptr<T>() : nullptr;
      T* g = gx.data_ptr<T>();
      const T* scale = nullptr;  // per position for "none"
      double s0 = 0;
      if (p.red == Reduction::None) {
        scale = grad.data_ptr<T>();
      } else {
        s0 = grad.item<double>();
        if (p.red == Reduction::Mean) {
          double tw = 0;
          for (int64_t r = 0; r < p.R; ++r)
            if (p.t[r] != p.ignore) tw += w ? double(w[p.t[r]]) : 1.0;
          s0 /= tw;
        }
      }
      double wsum = double(C);
      if (w) {
        wsum = 0;
        for (int64_t c = 0; c < C; ++c) wsum += double(w[c]);
      }
      constexpr int W = Vec<T>::size;
      for_blocks(p, [&](int64_t n, int64_t sb, int64_t len) {
        const T* xb = x + n * C * S + sb;
        T* gb = g + n * C * S + sb;
        alignas(64) T lse[kBlock], pa[kBlock], pb[kBlock], at[kBlock];
        for (int64_t j = 0; j < len; ++j) {
          const int64_t t = p.t[n * S + sb + j];
          const double gs = t == p.ignore ? 0.0
                            : p.red == Reduction::None ? double(scale[n * S + sb + j]) : s0;
          const double a =
              (p.smooth ? 1.0 - p.ls : 1.0) * (w && t != p.ignore ? double(w[t]) : 1.0) * gs;
          const double b = p.smooth ? p.ls / double(C) * gs : 0.0;
          at[j] = T(a);
          pa[j] = T(a + b * wsum);
          pb[j] = T(b);
        }
        if (!p.logits) {
          for (int64_t c = 0; c < C; ++c) std::fill(gb + c * S, gb + c * S + len, T(0));
        } else if (S == 1) {  // one contiguous row: SIMD along the classes
          const T lse0 = row_lse(xb, C);
          int64_t i = 0;
          for (; i + W <= C; i += W) {
            Vec<T> v = exp(Vec<T>::load(xb + i) - Vec<T>(lse0)) * Vec<T>(pa[0]);
            if (p.smooth) v = v - (w ? Vec<T>::load(w + i) * Vec<T>(pb[0]) : Vec<T>(pb[0]));
            v.store(gb + i);
          }
          for (; i < C; ++i)
            gb[i] =
                std::exp(xb[i] - lse0) * pa[0] - (p.smooth ? (w ? w[i] : T(1)) * pb[0] : T(0));
        } else {  // SIMD across neighbouring positions
          column_lse(xb, C, S, len, lse);
          for (int64_t c = 0; c < C; ++c) {
            const T wc = w ? w[c] : T(1);
            const T* xc = xb + c * S;
            T* gc = gb + c * S;
            int64_t j = 0;
            for (; j + W <= len; j += W) {
              Vec<T> v = exp(Vec<T>::load(xc + j) - Vec<T>::load(lse + j)) *
                         Vec<T>::load(pa + j);
              if (p.smooth) v = v - Vec<T>::load(pb + j) * Vec<T>(wc);
              v.store(gc + j);
            }
            for (; j < len; ++j)
              gc[j] = std::exp(xc[j] - lse[j]) * pa[j] - (p.smooth ? wc * pb[j] : T(0));
          }
        }
        for (int64_t j = 0; j < len; ++j) {
          const int64_t t = p.t[n * S + sb + j];
          if (t == p.ignore) {
            for (int64_t c = 0; c < C; ++c) gb[c * S + j] = T(0);
          } else {
            gb[t * S + j] -= at[j];
          }
        }
      });
    }
  });
}

}  // namespace

void add_class_loss_kernels(backend::Backend& b) {
  b.loss.class_loss = &class_loss_kernel;
  b.loss.class_loss_backward = &class_loss_backward_kernel;
}

}  // namespace ember::cpu
