// CPU kernels of batch and group norm (src/ops/norm.cpp): one sweep over memory for the statistics
// (Note [Chunked moments] in norm_sweeps.h), one for the affine normalisation, SIMD through Vec
// and parallel over channels or groups; the backward passes in two sweeps (Notes [Fused batch norm
// backward], [Fused group norm backward]). Layer and RMS norm: norm_rows.cpp.
#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/cpu/kernels.h"
#include "backend/cpu/lines.h"
#include "backend/cpu/norm_sweeps.h"
#include "backend/cpu/optional_data.h"
#include "core/dispatch.h"
#include "core/parallel.h"

namespace EMBER_CPU_NS {
namespace {

using namespace norm_sweeps;

// Per-channel moments of x viewed as (N, C, S), contiguous.
// Note [Batch norm layouts]: with S >= kPlanarMin each (n, c) plane is a contiguous run that
// SIMD sweeps well, so planes are reduced in parallel and merged per channel; with short planes
// (S == 1 for (N, C) input) the tensor is read as N rows of K = C * S columns and reduced down
// the columns, SIMD across them, in blocks of rows that stay in L1.
constexpr int64_t kPlanarMin = backend::kNormPlanarMin;

template <class U>
std::vector<Moments> channel_moments(const U* x, int64_t N, int64_t C, int64_t S) {
  using T = compute_t<U>;
  std::vector<Moments> out(static_cast<size_t>(C));
  if (S >= kPlanarMin) {
    std::vector<Moments> planes(static_cast<size_t>(N * C));
    parallel_for(0, N * C, std::max<int64_t>(1, kGrainSize / S), [&](int64_t a, int64_t b) {
      for (int64_t p = a; p < b; ++p) accumulate_any(x + p * S, S, planes[size_t(p)]);
    });
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < C; ++c) out[size_t(c)].merge(planes[size_t(n * C + c)]);
    return out;
  }
  constexpr int W = Vec<T>::size;
  constexpr int64_t kCols = 8 * W, kRows = 64;
  const int64_t K = C * S;
  std::vector<Moments> cols(static_cast<size_t>(K));
  const int64_t blocks = (K + kCols - 1) / kCols;
  parallel_for(0, blocks, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, N * kCols)),
               [&](int64_t ba, int64_t bb) {
    alignas(64) T s1[kCols], d1[kCols], d2[kCols], wide[kCols];
    for (int64_t blk = ba; blk < bb; ++blk) {
      const int64_t k0 = blk * kCols, nk = std::min(kCols, K - k0);
      const int64_t nv = nk / W * W;  // SIMD part of the block; the rest is scalar
      for (int64_t r0 = 0; r0 < N; r0 += kRows) {
        const int64_t nr = std::min(kRows, N - r0);
        std::fill(s1, s1 + kCols, T(0));
        std::fill(d1, d1 + kCols, T(0));
        std::fill(d2, d2 + kCols, T(0));
        for (int64_t r = r0; r < r0 + nr; ++r) {
          const T* row = widened(x + r * K + k0, nk, wide);
          int64_t j = 0;
          for (; j < nv; j += W) (Vec<T>::load(s1 + j) + Vec<T>::load(row + j)).store(s1 + j);
          for (; j < nk; ++j) s1[j] += row[j];
        }
        for (int64_t j = 0; j < nk; ++j) s1[j] /= T(nr);  // the chunk's column means
        for (int64_t r = r0; r < r0 + nr; ++r) {
          const T* row = widened(x + r * K + k0, nk, wide);
          int64_t j = 0;
          for (; j < nv; j += W) {
            const Vec<T> d = Vec<T>::load(row + j) - Vec<T>::load(s1 + j);
            (Vec<T>::load(d1 + j) + d).store(d1 + j);
            (Vec<T>::load(d2 + j) + d * d).store(d2 + j);
          }
          for (; j < nk; ++j) {
            const T d = row[j] - s1[j];
            d1[j] += d;
            d2[j] += d * d;
          }
        }
        for (int64_t j = 0; j < nk; ++j) {
          const double dr = double(d1[j]), dn = double(nr);
          cols[size_t(k0 + j)].merge(dn, double(s1[j]) + dr / dn,
                                     std::max(0.0, double(d2[j]) - dr * dr / dn));
        }
      }
    }
  });
  for (int64_t k = 0; k < K; ++k) out[size_t(k / S)].merge(cols[size_t(k)]);
  return out;
}

// y = x * scale[c] + shift[c] for x viewed as (N, C, S) (Note [Batch norm layouts]).
template <class U, class T>
void channel_affine(const U* x, U* y, int64_t N, int64_t C, int64_t S, const T* scale,
                    const T* shift) {
  if (S >= kPlanarMin) {
    parallel_for(0, N * C, std::max<int64_t>(1, kGrainSize / S), [&](int64_t a, int64_t b) {
      for (int64_t p = a; p < b; ++p)
        affine_any(x + p * S, y + p * S, S, scale[p % C], shift[p % C]);
    });
    return;
  }
  const int64_t K = C * S;
  std::vector<T> a(static_cast<size_t>(K)), b(static_cast<size_t>(K));  // scale and shift per column
  for (int64_t k = 0; k < K; ++k) {
    a[size_t(k)] = scale[k / S];
    b[size_t(k)] = shift[k / S];
  }
  parallel_for(0, N, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(K, 1)),
               [&](int64_t r0, int64_t r1) {
                 alignas(64) RunBuffer<U> buf;
                 for (int64_t r = r0; r < r1; ++r)
                   for (int64_t s = 0; s < K; s += std::min(K, kRun<U>)) {
                     const int64_t len = std::min(kRun<U>, K - s);
                     T* out = out_run(y + r * K + s, buf.data());
                     affine(widened(x + r * K + s, len, buf.data()), out, len, a.data() + s,
                            b.data() + s);
                     stored<U>(out, y + r * K + s, len);
                   }
               });
}

// Note [Fused batch norm backward]
// The composite formula below reads the activations about eight times; a CNN's step spends a
// large share of its time there. For contiguous planes (Note [Batch norm layouts]) and no
// create_graph, two sweeps do it: per-plane sums of dy and dy (x - mean), merged per channel in
// double, then dx = (dy - (x - mean) k - Σdy / M) invstd w with k = Σdy(x - mean) invstd² / M —
// PyTorch's CPU kernel's form.
// plane_grad_sums of each of the P contiguous planes of S elements, about plane p's mean(p).
template <class U, class MeanOf, class T = compute_t<U>>
std::vector<std::pair<double, double>> planes_grad_sums(const U* x, const U* dy, int64_t P,
                                                        int64_t S, const MeanOf& mean_of) {
  std::vector<std::pair<double, double>> planes(static_cast<size_t>(P));
  parallel_for(0, P, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(S, 1)),
               [&](int64_t a, int64_t b) {
                 for (int64_t p = a; p < b; ++p)
                   planes[size_t(p)] =
                       plane_grad_sums(x + p * S, dy + p * S, (const T*)nullptr, S, mean_of(p));
               });
  return planes;
}

// The constants of grad_input_run for one plane.
template <class T>
struct PlaneGrad {
  T mean, k, gm, sc, gs;
};

// grad_input_run over each of the P contiguous planes of S elements with constants(p).
template <class U, class Constants, class T = compute_t<U>>
void planes_grad_input(const U* x, const U* dy, U* gi, int64_t P, int64_t S,
                       const Constants& constants) {
  parallel_for(0, P, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(S, 1)),
               [&](int64_t a, int64_t b) {
    alignas(64) RunBuffer<U> xbuf, gbuf;
    for (int64_t p = a; p < b; ++p) {
      const PlaneGrad<T> q = constants(p);
      if constexpr (kInRegisters<U>) {
        grad_input_run(x + p * S, dy + p * S, (const T*)nullptr, q.gs, gi + p * S, S, q.mean, q.k,
                       q.gm, q.sc);
        continue;
      }
      for (int64_t s = 0; s < S; s += std::min(S, kRun<U>)) {
        const int64_t len = std::min(kRun<U>, S - s), off = p * S + s;
        const T* xp = widened(x + off, len, xbuf.data());
        const T* gp = widened(dy + off, len, gbuf.data());
        T* op = out_run(gi + off, gbuf.data());  // each element of gp is read before written
        grad_input_run(xp, gp, (const T*)nullptr, q.gs, op, len, q.mean, q.k, q.gm, q.sc);
        stored<U>(op, gi + off, len);
      }
    }
  });
}

template <class U, class T = compute_t<U>>
void batch_norm_backward_planar(const U* x, const U* dy, U* gi, int64_t N, int64_t C, int64_t S,
                                const T* mean, const T* invstd, const T* w, bool training,
                                T* gw, T* gb) {
  std::vector<double> sum_dy(static_cast<size_t>(C)), dot(static_cast<size_t>(C));
  if (training || gw || gb) {
    const auto planes = planes_grad_sums(x, dy, N * C, S, [&](int64_t p) { return mean[p % C]; });
    for (int64_t p = 0; p < N * C; ++p) {
      sum_dy[size_t(p % C)] += planes[size_t(p)].first;
      dot[size_t(p % C)] += planes[size_t(p)].second;
    }
  }
  for (int64_t c = 0; c < C; ++c) {
    if (gw) gw[c] = T(dot[size_t(c)] * double(invstd[c]));
    if (gb) gb[c] = T(sum_dy[size_t(c)]);
  }
  if (!gi) return;
  const double M = double(N * S);
  std::vector<PlaneGrad<T>> q(static_cast<size_t>(C));
  for (int64_t c = 0; c < C; ++c) {
    const double is = double(invstd[c]);
    q[size_t(c)] = {mean[c], training ? T(dot[size_t(c)] * is * is / M) : T(0),
                    training ? T(sum_dy[size_t(c)] / M) : T(0), T(is * (w ? double(w[c]) : 1.0)),
                    T(1)};
  }
  planes_grad_input(x, dy, gi, N * C, S, [&](int64_t p) { return q[size_t(p % C)]; });
}

// Note [Fused group norm backward]
// batch_norm's plan per (n, group) instead of per channel: per-plane sums of dy and dy (x - mean)
// give the weight's and bias's gradients per channel (summed over n) and, weighted by w[c] and
// summed over the group's channels, Σ g and Σ g (x - mean) for g = dy w; then
// dx = (dy w[c] - (x - mean) k - Σg / (D S)) rstd with k = Σ g (x - mean) rstd² / (D S).
template <class U, class T = compute_t<U>>
void group_norm_backward_planes(const U* x, const U* dy, U* gi, int64_t N, int64_t C, int64_t S,
                                int64_t G, const T* mean, const T* rstd, const T* w, T* gw,
                                T* gb) {
  const int64_t D = C / G;
  const auto planes =
      planes_grad_sums(x, dy, N * C, S, [&](int64_t p) { return mean[p / C * G + p % C / D]; });
  std::vector<double> sum_dy(static_cast<size_t>(C)), dot(static_cast<size_t>(C));
  std::vector<double> group_g(static_cast<size_t>(N * G)), group_dot(static_cast<size_t>(N * G));
  for (int64_t p = 0; p < N * C; ++p) {
    const int64_t c = p % C, ng = p / C * G + c / D;
    const double wc = w ? double(w[c]) : 1.0;
    sum_dy[size_t(c)] += planes[size_t(p)].first;
    dot[size_t(c)] += planes[size_t(p)].second * double(rstd[ng]);
    group_g[size_t(ng)] += wc * planes[size_t(p)].first;
    group_dot[size_t(ng)] += wc * planes[size_t(p)].second;
  }
  for (int64_t c = 0; c < C; ++c) {
    if (gw) gw[c] = T(dot[size_t(c)]);
    if (gb) gb[c] = T(sum_dy[size_t(c)]);
  }
  if (!gi) return;
  const double M = double(D * S);
  planes_grad_input(x, dy, gi, N * C, S, [&](int64_t p) {
    const int64_t c = p % C, ng = p / C * G + c / D;
    const double rs = double(rstd[ng]);
    return PlaneGrad<T>{mean[ng], T(group_dot[size_t(ng)] * rs * rs / M),
                        T(group_g[size_t(ng)] / M), T(rs), w ? w[c] : T(1)};
  });
}

// ── the entries (backend/norm_kernels.h): x, dy and y/dx in float32/float64, or bfloat16/float16
// read and written directly (Note [Reduced-precision norms]); weight, bias, statistics in T ──

void batch_norm_stats_kernel(const Tensor& x, const Tensor& mean, const Tensor& var) {
  const int64_t N = x.size(0), C = x.size(1), S = x.numel() / std::max<int64_t>(1, N * C);
  dispatch<DtypeSet::Floating>(x.dtype(), "batch_norm", [&]<class U>() {
    if constexpr (simd_type_v<U> || is_half_v<U>) {
      const std::vector<Moments> m = channel_moments(x.data_ptr<U>(), N, C, S);
      double* mp = mean.data_ptr<double>();
      double* vp = var.data_ptr<double>();
      for (int64_t c = 0; c < C; ++c) {
        mp[c] = m[size_t(c)].mean;
        vp[c] = m[size_t(c)].var();
      }
    }
  });
}

void batch_norm_kernel(const Tensor& y, const Tensor& save_mean, const Tensor& save_invstd,
                       const Tensor& x, const Tensor& weight, const Tensor& bias,
                       const Tensor& mean_t, const Tensor& var_t, double eps) {
  const int64_t N = x.size(0), C = x.size(1), S = x.numel() / std::max<int64_t>(1, N * C);
  dispatch<DtypeSet::Floating>(x.dtype(), "batch_norm", [&]<class U>() {
    if constexpr (simd_type_v<U> || is_half_v<U>) {
      using T = compute_t<U>;
      const double* mean = mean_t.data_ptr<double>();
      const double* var = var_t.data_ptr<double>();
      const T* wp = data_or_null<T>(weight);
      const T* bp = data_or_null<T>(bias);
      std::vector<T> scale(static_cast<size_t>(C)), shift(static_cast<size_t>(C));
      T* sm = save_mean.data_ptr<T>();
      T* si = save_invstd.data_ptr<T>();
      for (int64_t c = 0; c < C; ++c) {
        const double invstd = 1.0 / std::sqrt(var[c] + eps);
        sm[c] = T(mean[c]);
        si[c] = T(invstd);
        const double a = invstd * (wp ? double(wp[c]) : 1.0);
        scale[size_t(c)] = T(a);
        shift[size_t(c)] = T((bp ? double(bp[c]) : 0.0) - mean[c] * a);
      }
      channel_affine(x.data_ptr<U>(), y.data_ptr<U>(), N, C, S, scale.data(), shift.data());
    }
  });
}

void batch_norm_backward_kernel(const Tensor& gi, const Tensor& gw, const Tensor& gb,
                                const Tensor& x, const Tensor& dy, const Tensor& mean,
                                const Tensor& invstd, const Tensor& w, bool training) {
  const int64_t N = x.size(0), C = x.size(1), S = x.numel() / std::max<int64_t>(1, N * C);
  dispatch<DtypeSet::Floating>(x.dtype(), "batch_norm_backward", [&]<class U>() {
    using T = compute_t<U>;
    if constexpr (simd_type_v<U> || is_half_v<U>)
      batch_norm_backward_planar<U>(x.data_ptr<U>(), dy.data_ptr<U>(), data_or_null<U>(gi), N, C, S,
                                    mean.data_ptr<T>(), invstd.data_ptr<T>(), data_or_null<T>(w),
                                    training, data_or_null<T>(gw), data_or_null<T>(gb));
  });
}

void group_norm_kernel(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                       const Tensor& w, const Tensor& b, int64_t G, double eps) {
  const int64_t N = x.size(0), C = x.size(1);
  const int64_t S = N * C > 0 ? x.numel() / (N * C) : 0, D = C / G;  // D channels a group
  dispatch<DtypeSet::Floating>(x.dtype(), "group_norm", [&]<class U>() {
    if constexpr (simd_type_v<U> || is_half_v<U>) {
      using T = compute_t<U>;
      const NormOperands<U> a(x, y, mean, rstd, w, b);
      const int64_t len = D * S;  // one (n, g) group is a contiguous run
      for_lines(N * G, len, [&](int64_t ng0, int64_t ng1) {
        for (int64_t ng = ng0; ng < ng1; ++ng) {
          Moments m;
          accumulate_any(a.x + ng * len, len, m);
          const double rs = 1.0 / std::sqrt(m.var() + eps);
          a.mean[ng] = T(m.mean);
          a.rstd[ng] = T(rs);
          const int64_t g = ng % G;
          for (int64_t d = 0; d < D; ++d) {
            const int64_t c = g * D + d;
            const double sc = rs * (a.w ? double(a.w[c]) : 1.0);
            const double sh = (a.b ? double(a.b[c]) : 0.0) - m.mean * sc;
            const int64_t off = ng * len + d * S;
            affine_any(a.x + off, a.y + off, S, T(sc), T(sh));
          }
        }
      });
    }
  });
}

void group_norm_backward_kernel(const Tensor& gi, const Tensor& gw, const Tensor& gb,
                                const Tensor& x, const Tensor& dy, const Tensor& mean,
                                const Tensor& rstd, const Tensor& w, int64_t G) {
  const int64_t N = x.size(0), C = x.size(1), S = N * C > 0 ? x.numel() / (N * C) : 0;
  dispatch<DtypeSet::Floating>(x.dtype(), "group_norm_backward", [&]<class U>() {
    using T = compute_t<U>;
    if constexpr (simd_type_v<U> || is_half_v<U>)
      group_norm_backward_planes<U>(x.data_ptr<U>(), dy.data_ptr<U>(), data_or_null<U>(gi), N, C, S,
                                    G, mean.data_ptr<T>(), rstd.data_ptr<T>(), data_or_null<T>(w),
                                    data_or_null<T>(gw), data_or_null<T>(gb));
  });
}

}  // namespace

void add_norm_kernels(backend::Backend& b) {
  b.norm.batch_norm_stats = &batch_norm_stats_kernel;
  b.norm.batch_norm = &batch_norm_kernel;
  b.norm.batch_norm_backward = &batch_norm_backward_kernel;
  b.norm.group_norm = &group_norm_kernel;
  b.norm.group_norm_backward = &group_norm_backward_kernel;
  add_row_norm_kernels(b);
}

}  // namespace EMBER_CPU_NS
