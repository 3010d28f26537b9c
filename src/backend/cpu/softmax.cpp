// CPU kernels of softmax and log_softmax (src/ops/softmax.cpp): numerically stable (shifted by
// the max), SIMD through exp_fast (exp_float.h's inline exp for float, within 1 ulp and the same
// bits at every CPU level; SLEEF for double). A contiguous line (inner == 1) is the hot case;
// otherwise each (D, inner) block is walked down its columns, SIMD across them.
#include <algorithm>
#include <cmath>
#include <limits>

#include "backend/cpu/exp_float.h"
#include "backend/cpu/kernels.h"
#include "backend/cpu/lines.h"
#include "backend/cpu/vec.h"
#include "core/dispatch.h"

namespace EMBER_CPU_NS {
namespace {

// One contiguous row of D values (inner == 1): the hot case (attention, classifier logits).
template <class T, bool Log>
void softmax_row(const T* x, T* y, int64_t D) {
  constexpr int W = Vec<T>::size;
  // An all -inf row (fully masked) yields NaN like PyTorch; a +inf max also gives NaN.
  const T shift = row_max(x, D);
  int64_t i = 0;
  Vec<T> vs(T(0));
  for (; i + W <= D; i += W) {
    const Vec<T> e = exp_fast(Vec<T>::load(x + i) - Vec<T>(shift));
    if constexpr (!Log) e.store(y + i);
    vs = vs + e;
  }
  T sum = hsum(vs);
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
      for (; j < wv; j += W) vmax(Vec<T>::load(mx + j), Vec<T>::load(row + j)).store(mx + j);
      for (; j < w; ++j) mx[j] = vmax(mx[j], row[j]);
    }
    for (int64_t d = 0; d < D; ++d) {
      const T* row = x + d * inner + j0;
      T* out = y + d * inner + j0;
      int64_t j = 0;
      for (; j < wv; j += W) {
        const Vec<T> e = exp_fast(Vec<T>::load(row + j) - Vec<T>::load(mx + j));
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
void softmax_kernel(const char* op, const Tensor& y, const Tensor& x, int64_t dim) {
  const Lines s = lines_of(x, dim);
  dispatch<DtypeSet::Floating>(x.dtype(), op, [&]<class T>() {
    if constexpr (simd_type_v<T>) {
      const T* xp = x.data_ptr<T>();
      T* yp = y.data_ptr<T>();
      const int64_t block = s.n * s.inner;
      if (s.inner == 1) {
        for_lines(s.outer, s.n, [&](int64_t a, int64_t b) {
          for (int64_t o = a; o < b; ++o) softmax_row<T, Log>(xp + o * block, yp + o * block, s.n);
        });
      } else {
        for_lines(s.outer, block, [&](int64_t a, int64_t b) {
          for (int64_t o = a; o < b; ++o)
            softmax_columns<T, Log>(xp + o * block, yp + o * block, s.n, s.inner);
        });
      }
    } else {
      fail(op, "not implemented for dtype ", x.dtype(), " (float16/bfloat16 compute in float32)");
    }
  });
}

}  // namespace

void add_softmax_kernels(backend::Backend& b) {
  b.softmax.softmax = &softmax_kernel<false>;
  b.softmax.log_softmax = &softmax_kernel<true>;
}

}  // namespace EMBER_CPU_NS
