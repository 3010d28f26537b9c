// Normalisation: batch_norm, layer_norm, group_norm, rms_norm. Fused CPU kernels: one sweep
// over memory for the statistics (Note [Chunked moments]), one for the affine normalisation,
// SIMD through cpu::Vec and parallel over channels, rows or groups. The backward kernels, as
// plain functions of the saved statistics, are in norm_backward (the bottom of this file).
#include "ops/norm.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <tuple>
#include <vector>

#include "autograd/function.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/vec.h"
#include "core/dispatch.h"
#include "ember/creation.h"
#include "ember/math.h"
#include "ember/nn/functional/layers.h"
#include "ember/reduce.h"

namespace ember::nn::functional {
namespace {

using cpu::Vec;

// The compute (and statistics) dtype: PyTorch's opmath type.
Dtype opmath(Dtype t) { return t == kFloat64 ? kFloat64 : kFloat32; }

// A tensor converted to `dtype` and made contiguous (no copy when it already is both).
Tensor prepare(const Tensor& t, Dtype dtype) { return t.to(dtype).contiguous(); }

// Note [Chunked moments]
// Mean and variance in one sweep over memory that stays accurate when |mean| >> std: a chunk of
// at most kChunk elements (it sits in L1) is summed twice in SIMD registers of T — once for its
// mean c, once for the deviations d = x - c (whose sum corrects c) and their squares — and the
// chunks are merged in double with Chan's parallel formula.
constexpr int64_t kChunk = 2048;

struct Moments {
  double n = 0, mean = 0, m2 = 0;  // count, mean, sum of squared deviations
  void merge(double nb, double mean_b, double m2_b) {
    if (nb == 0) return;
    const double nt = n + nb, d = mean_b - mean;
    mean += d * nb / nt;
    m2 += m2_b + d * d * n * nb / nt;
    n = nt;
  }
  void merge(const Moments& o) { merge(o.n, o.mean, o.m2); }
  double var() const { return n > 0 ? m2 / n : std::numeric_limits<double>::quiet_NaN(); }
};

template <class T>
T vsum(const T* x, int64_t n) {
  constexpr int W = Vec<T>::size;
  Vec<T> a0(T(0)), a1(T(0));
  int64_t i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    a0 = a0 + Vec<T>::load(x + i);
    a1 = a1 + Vec<T>::load(x + i + W);
  }
  for (; i + W <= n; i += W) a0 = a0 + Vec<T>::load(x + i);
  T s = hsum(a0 + a1);
  for (; i < n; ++i) s += x[i];
  return s;
}

// Adds x[0, n) to m (Note [Chunked moments]).
template <class T>
void accumulate(const T* x, int64_t n, Moments& m) {
  constexpr int W = Vec<T>::size;
  for (int64_t s = 0; s < n; s += kChunk) {
    const int64_t len = std::min(kChunk, n - s);
    const T* p = x + s;
    const T c = vsum(p, len) / T(len);
    Vec<T> d1(T(0)), d2(T(0));
    int64_t i = 0;
    for (; i + W <= len; i += W) {
      const Vec<T> d = Vec<T>::load(p + i) - Vec<T>(c);
      d1 = d1 + d;
      d2 = d2 + d * d;
    }
    T r = hsum(d1), q = hsum(d2);
    for (; i < len; ++i) {
      const T d = p[i] - c;
      r += d;
      q += d * d;
    }
    const double dr = double(r), dn = double(len);
    m.merge(dn, double(c) + dr / dn, std::max(0.0, double(q) - dr * dr / dn));
  }
}

// Sum of squares of x[0, n), chunks flushed to double (rms_norm).
template <class T>
double sum_squares(const T* x, int64_t n) {
  constexpr int W = Vec<T>::size;
  double total = 0;
  for (int64_t s = 0; s < n; s += kChunk) {
    const int64_t len = std::min(kChunk, n - s);
    const T* p = x + s;
    Vec<T> a(T(0));
    int64_t i = 0;
    for (; i + W <= len; i += W) {
      const Vec<T> v = Vec<T>::load(p + i);
      a = a + v * v;
    }
    T q = hsum(a);
    for (; i < len; ++i) q += p[i] * p[i];
    total += double(q);
  }
  return total;
}

// y[i] = x[i] * a + b.
template <class T>
void affine(const T* x, T* y, int64_t n, T a, T b) {
  constexpr int W = Vec<T>::size;
  int64_t i = 0;
  for (; i + W <= n; i += W) (Vec<T>::load(x + i) * Vec<T>(a) + Vec<T>(b)).store(y + i);
  for (; i < n; ++i) y[i] = x[i] * a + b;
}

// y[i] = x[i] * a[i] + b[i].
template <class T>
void affine(const T* x, T* y, int64_t n, const T* a, const T* b) {
  constexpr int W = Vec<T>::size;
  int64_t i = 0;
  for (; i + W <= n; i += W)
    (Vec<T>::load(x + i) * Vec<T>::load(a + i) + Vec<T>::load(b + i)).store(y + i);
  for (; i < n; ++i) y[i] = x[i] * a[i] + b[i];
}

// y[i] = (x[i] - mean) * rstd * w[i] + b[i] (w or b null: 1 or 0) — layer_norm's row.
template <class T>
void normalize_row(const T* x, T* y, int64_t n, T mean, T rstd, const T* w, const T* b) {
  constexpr int W = Vec<T>::size;
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    Vec<T> v = (Vec<T>::load(x + i) - Vec<T>(mean)) * Vec<T>(rstd);
    if (w) v = v * Vec<T>::load(w + i);
    if (b) v = v + Vec<T>::load(b + i);
    v.store(y + i);
  }
  for (; i < n; ++i) {
    T v = (x[i] - mean) * rstd;
    if (w) v = v * w[i];
    if (b) v = v + b[i];
    y[i] = v;
  }
}

template <class T>
T* ptr_or_null(const Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

// Per-channel moments of x viewed as (N, C, S), contiguous.
// Note [Batch norm layouts]: with S >= kPlanarMin each (n, c) plane is a contiguous run that
// SIMD sweeps well, so planes are reduced in parallel and merged per channel; with short planes
// (S == 1 for (N, C) input) the tensor is read as N rows of K = C * S columns and reduced down
// the columns, SIMD across them, in blocks of rows that stay in L1.
constexpr int64_t kPlanarMin = 32;

template <class T>
std::vector<Moments> channel_moments(const T* x, int64_t N, int64_t C, int64_t S) {
  std::vector<Moments> out(static_cast<size_t>(C));
  if (S >= kPlanarMin) {
    std::vector<Moments> planes(static_cast<size_t>(N * C));
    parallel_for(0, N * C, std::max<int64_t>(1, kGrainSize / S), [&](int64_t a, int64_t b) {
      for (int64_t p = a; p < b; ++p) accumulate(x + p * S, S, planes[size_t(p)]);
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
    alignas(64) T s1[kCols], d1[kCols], d2[kCols];
    for (int64_t blk = ba; blk < bb; ++blk) {
      const int64_t k0 = blk * kCols, nk = std::min(kCols, K - k0);
      const int64_t nv = nk / W * W;  // SIMD part of the block; the rest is scalar
      for (int64_t r0 = 0; r0 < N; r0 += kRows) {
        const int64_t nr = std::min(kRows, N - r0);
        std::fill(s1, s1 + kCols, T(0));
        std::fill(d1, d1 + kCols, T(0));
        std::fill(d2, d2 + kCols, T(0));
        for (int64_t r = r0; r < r0 + nr; ++r) {
          const T* row = x + r * K + k0;
          int64_t j = 0;
          for (; j < nv; j += W) (Vec<T>::load(s1 + j) + Vec<T>::load(row + j)).store(s1 + j);
          for (; j < nk; ++j) s1[j] += row[j];
        }
        for (int64_t j = 0; j < nk; ++j) s1[j] /= T(nr);  // the chunk's column means
        for (int64_t r = r0; r < r0 + nr; ++r) {
          const T* row = x + r * K + k0;
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
template <class T>
void channel_affine(const T* x, T* y, int64_t N, int64_t C, int64_t S, const T* scale,
                    const T* shift) {
  if (S >= kPlanarMin) {
    parallel_for(0, N * C, std::max<int64_t>(1, kGrainSize / S), [&](int64_t a, int64_t b) {
      for (int64_t p = a; p < b; ++p)
        affine(x + p * S, y + p * S, S, scale[p % C], shift[p % C]);
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
                 for (int64_t r = r0; r < r1; ++r)
                   affine(x + r * K, y + r * K, K, a.data(), b.data());
               });
}

void check_numel(const Tensor& t, int64_t C, const char* name) {
  EMBER_CHECK(!t.defined() || t.numel() == C, "batch_norm", name, " should contain ", C,
              " elements not ", t.numel());
}

// (M, N): rows and row length of input normalised over its trailing normalized_shape.
std::pair<int64_t, int64_t> check_layer_norm(const char* op, const Tensor& input,
                                             IntArrayRef shape, const Tensor& weight,
                                             const Tensor& bias) {
  const int64_t nd = int64_t(shape.size());
  EMBER_CHECK(nd >= 1, op, "Expected normalized_shape to be at least 1-dimensional, i.e., ",
              "containing at least one element, but got normalized_shape = ", shape);
  EMBER_CHECK(!weight.defined() || weight.sizes() == shape, op,
              "Expected weight to be of same shape as normalized_shape, but got weight of shape ",
              weight.defined() ? weight.sizes() : IntArrayRef(), " and normalized_shape = ", shape);
  EMBER_CHECK(!bias.defined() || bias.sizes() == shape, op,
              "Expected bias to be of same shape as normalized_shape, but got bias of shape ",
              bias.defined() ? bias.sizes() : IntArrayRef(), " and normalized_shape = ", shape);
  const int64_t axis = input.dim() - nd;
  bool ok = axis >= 0;
  for (int64_t i = 0; ok && i < nd; ++i) ok = input.size(axis + i) == shape[size_t(i)];
  if (!ok) {
    std::ostringstream want;
    for (int64_t s : shape) want << ", " << s;
    fail(op, "Given normalized_shape=", shape, ", expected input with shape [*", want.str(),
         "], but got input of size", input.sizes());
  }
  int64_t M = 1;
  for (int64_t i = 0; i < axis; ++i) M *= input.size(i);
  return {M, prod(shape)};
}

// The stats shape of layer_norm/rms_norm: input's leading dims, then 1 per normalised dim.
DimVector stat_shape(const Tensor& input, int64_t nd) {
  DimVector s(input.sizes());
  for (int64_t i = input.dim() - nd; i < input.dim(); ++i) s[size_t(i)] = 1;
  return s;
}

}  // namespace

// ── batch_norm ───────────────────────────────────────────────────────────
std::tuple<Tensor, Tensor, Tensor> batch_norm_forward(const Tensor& input, const Tensor& weight,
                                                      const Tensor& bias,
                                                      const Tensor& running_mean,
                                                      const Tensor& running_var, bool training,
                                                      std::optional<double> momentum, double eps) {
  const char* op = "batch_norm";
  EMBER_CHECK(input.dim() >= 2, op, "expected 2D or higher input (N, C, *), got ", input.dim(),
              "D input");
  const int64_t N = input.size(0), C = input.size(1), S = input.numel() / std::max<int64_t>(
      1, N * C);
  check_numel(weight, C, "weight");
  check_numel(bias, C, "bias");
  check_numel(running_mean, C, "running_mean");
  check_numel(running_var, C, "running_var");
  EMBER_CHECK(training || (running_mean.defined() && running_var.defined()), op,
              "running_mean must be defined in evaluation mode");
  const bool update = training && running_mean.defined() && running_var.defined();
  EMBER_CHECK(!update || momentum.has_value(), op,
              "momentum is None: pass the cumulative moving average factor ",
              "1 / num_batches_tracked as momentum");
  const Dtype cd = opmath(input.dtype());
  EMBER_CHECK(input.is_floating_point(), op, "not implemented for dtype ", input.dtype());
  const Tensor x = prepare(input, cd);
  Tensor y = empty(x.sizes(), {.dtype = cd});
  Tensor save_mean = empty({C}, {.dtype = cd}), save_invstd = empty({C}, {.dtype = cd});
  dispatch<DtypeSet::Floating>(cd, op, [&]<class T>() {
    if constexpr (cpu::simd_type_v<T>) {
      const int64_t M = N * S;
      std::vector<double> mean(static_cast<size_t>(C)), var(static_cast<size_t>(C));
      if (training) {
        EMBER_CHECK(M > 1, op, "Expected more than 1 value per channel when training, got input ",
                    "size ", input.sizes());
        const std::vector<Moments> m = channel_moments(x.data_ptr<T>(), N, C, S);
        for (int64_t c = 0; c < C; ++c) {
          mean[size_t(c)] = m[size_t(c)].mean;
          var[size_t(c)] = m[size_t(c)].var();
        }
        if (update) {
          // running = (1 - momentum) running + momentum stat, with the unbiased variance.
          const double mo = *momentum, unbias = double(M) / double(M - 1);
          const Tensor bm = from_vector(mean).to(kFloat64), bv = from_vector(var).to(kFloat64);
          Tensor rm = running_mean, rv = running_var;
          rm.copy_(running_mean.to(kFloat64) * (1.0 - mo) + bm * mo);
          rv.copy_(running_var.to(kFloat64) * (1.0 - mo) + bv * (mo * unbias));
        }
      } else {
        mean = prepare(running_mean, kFloat64).tolist<double>();
        var = prepare(running_var, kFloat64).tolist<double>();
      }
      const Tensor w = weight.defined() ? prepare(weight, cd) : Tensor();
      const Tensor b = bias.defined() ? prepare(bias, cd) : Tensor();
      const T* wp = ptr_or_null<T>(w);
      const T* bp = ptr_or_null<T>(b);
      std::vector<T> scale(static_cast<size_t>(C)), shift(static_cast<size_t>(C));
      T* sm = save_mean.data_ptr<T>();
      T* si = save_invstd.data_ptr<T>();
      for (int64_t c = 0; c < C; ++c) {
        const double invstd = 1.0 / std::sqrt(var[size_t(c)] + eps);
        sm[c] = T(mean[size_t(c)]);
        si[c] = T(invstd);
        const double a = invstd * (wp ? double(wp[c]) : 1.0);
        scale[size_t(c)] = T(a);
        shift[size_t(c)] = T((bp ? double(bp[c]) : 0.0) - mean[size_t(c)] * a);
      }
      channel_affine(x.data_ptr<T>(), y.data_ptr<T>(), N, C, S, scale.data(), shift.data());
    }
  });
  return {y.to(input.dtype()), save_mean, save_invstd};
}

// Note [Norm autograd]
// Each norm records PyTorch's native node over (input, weight, bias) and saves its statistics;
// the backward formulas (norm_backward, at the bottom) are public ops over those statistics.
// With create_graph the statistics are recomputed from the input with differentiable ops, so
// that the double backward sees how they depend on it.
namespace {
using autograd::Grads;
using autograd::Saved;
using autograd::TensorList;

// Every dim but `keep`.
DimVector dims_except(int64_t nd, int64_t keep) {
  DimVector r;
  for (int64_t d = 0; d < nd; ++d)
    if (d != keep) r.push_back(d);
  return r;
}
DimVector dims_from(int64_t nd, int64_t first) {
  DimVector r;
  for (int64_t d = first; d < nd; ++d) r.push_back(d);
  return r;
}
DimVector dims_before(int64_t first) {
  DimVector r;
  for (int64_t d = 0; d < first; ++d) r.push_back(d);
  return r;
}
// (mean, 1 / sqrt(var + eps)) over `dims`, kept, from differentiable ops.
std::pair<Tensor, Tensor> moments(const Tensor& x, IntArrayRef dims, double eps) {
  const Tensor mean = x.mean(dims, true);
  const Tensor d = x - mean;
  return {mean, ((d * d).mean(dims, true) + eps).pow(-0.5)};
}
// grad_output summed to a (C)-shaped bias over `dims`, or the whole tensor when dims is empty.
Tensor sum_over(const Tensor& g, IntArrayRef dims) { return dims.empty() ? g : g.sum(dims); }
}  // namespace

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  BatchNormFuncOptions o) {
  autograd::Recorder rec("batch_norm", {&input, &o.weight, &o.bias});
  auto [out, save_mean, save_invstd] = batch_norm_forward(
      input, o.weight, o.bias, running_mean, running_var, o.training, o.momentum, o.eps);
  if (rec)
    rec.record("NativeBatchNormBackward0", {out}, {input, o.weight, save_mean, save_invstd},
               [training = o.training, eps = o.eps, has_bias = o.bias.defined()](
                   const Grads& g, const Saved& s) {
                 Tensor mean = s[2], invstd = s[3];
                 const DimVector red = dims_except(s[0].dim(), 1);
                 if (is_grad_enabled() && training) {  // Note [Norm autograd]
                   std::tie(mean, invstd) = moments(s[0].to(mean.dtype()), red, eps);
                   const int64_t C = s[0].size(1);
                   mean = mean.reshape({C}), invstd = invstd.reshape({C});
                 }
                 auto [gi, gw, gb] = batch_norm_backward(g[0], s[0], s[1], mean, invstd, training,
                                                         {true, s[1].defined(), has_bias});
                 if (has_bias && !gb.defined()) gb = sum_over(g[0], red);  // bias without weight
                 return TensorList{gi, gw, has_bias ? gb : Tensor()};
               });
  return out;
}

// ── layer_norm / rms_norm ────────────────────────────────────────────────
std::tuple<Tensor, Tensor, Tensor> layer_norm_forward(const Tensor& input,
                                                      IntArrayRef normalized_shape,
                                                      const Tensor& weight, const Tensor& bias,
                                                      double eps) {
  const char* op = "layer_norm";
  // Plain variables, not a structured binding: the kernels' lambdas capture them (clang 14).
  const std::pair<int64_t, int64_t> rows =
      check_layer_norm(op, input, normalized_shape, weight, bias);
  const int64_t M = rows.first, N = rows.second;
  EMBER_CHECK(input.is_floating_point(), op, "not implemented for dtype ", input.dtype());
  const Dtype cd = opmath(input.dtype());
  const Tensor x = prepare(input, cd);
  const Tensor w = weight.defined() ? prepare(weight, cd) : Tensor();
  const Tensor b = bias.defined() ? prepare(bias, cd) : Tensor();
  Tensor y = empty(x.sizes(), {.dtype = cd});
  const DimVector ss = stat_shape(input, int64_t(normalized_shape.size()));
  Tensor mean = empty(ss, {.dtype = cd}), rstd = empty(ss, {.dtype = cd});
  dispatch<DtypeSet::Floating>(cd, op, [&]<class T>() {
    if constexpr (cpu::simd_type_v<T>) {
      const T* xp = x.data_ptr<T>();
      T* yp = y.data_ptr<T>();
      T* mp = mean.data_ptr<T>();
      T* rp = rstd.data_ptr<T>();
      const T* wp = ptr_or_null<T>(w);
      const T* bp = ptr_or_null<T>(b);
      parallel_for(0, M, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(N, 1)),
                   [&](int64_t r0, int64_t r1) {
                     for (int64_t r = r0; r < r1; ++r) {
                       Moments m;
                       accumulate(xp + r * N, N, m);
                       const T mu = T(m.mean), rs = T(1.0 / std::sqrt(m.var() + eps));
                       mp[r] = mu;
                       rp[r] = rs;
                       normalize_row(xp + r * N, yp + r * N, N, mu, rs, wp, bp);
                     }
                   });
    }
  });
  return {y.to(input.dtype()), mean, rstd};
}

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, LayerNormFuncOptions o) {
  autograd::Recorder rec("layer_norm", {&input, &o.weight, &o.bias});
  auto [out, mean, rstd] = layer_norm_forward(input, normalized_shape, o.weight, o.bias, o.eps);
  if (rec)
    rec.record("NativeLayerNormBackward0", {out}, {input, o.weight, mean, rstd},
               [shape = DimVector(normalized_shape), eps = o.eps, has_bias = o.bias.defined()](
                   const Grads& g, const Saved& s) {
                 Tensor mean = s[2], rstd = s[3];
                 const int64_t axis = s[0].dim() - int64_t(shape.size());
                 if (is_grad_enabled())  // Note [Norm autograd]
                   std::tie(mean, rstd) =
                       moments(s[0].to(mean.dtype()), dims_from(s[0].dim(), axis), eps);
                 auto [gi, gw, gb] = layer_norm_backward(g[0], s[0], shape, mean, rstd, s[1],
                                                         {true, s[1].defined(), false});
                 return TensorList{gi, gw,
                                   has_bias ? sum_over(g[0], dims_before(axis)) : Tensor()};
               });
  return out;
}

std::tuple<Tensor, Tensor> rms_norm_forward(const Tensor& input, IntArrayRef normalized_shape,
                                            const Tensor& weight, std::optional<double> eps) {
  const char* op = "rms_norm";
  const std::pair<int64_t, int64_t> rows =
      check_layer_norm(op, input, normalized_shape, weight, Tensor());
  const int64_t M = rows.first, N = rows.second;
  EMBER_CHECK(input.is_floating_point(), op, "not implemented for dtype ", input.dtype());
  const Dtype cd = opmath(input.dtype());
  const double e = eps.value_or(cd == kFloat64 ? std::numeric_limits<double>::epsilon()
                                               : double(std::numeric_limits<float>::epsilon()));
  const Tensor x = prepare(input, cd);
  const Tensor w = weight.defined() ? prepare(weight, cd) : Tensor();
  Tensor y = empty(x.sizes(), {.dtype = cd});
  Tensor rstd = empty(stat_shape(input, int64_t(normalized_shape.size())), {.dtype = cd});
  dispatch<DtypeSet::Floating>(cd, op, [&]<class T>() {
    if constexpr (cpu::simd_type_v<T>) {
      const T* xp = x.data_ptr<T>();
      T* yp = y.data_ptr<T>();
      T* rp = rstd.data_ptr<T>();
      const T* wp = ptr_or_null<T>(w);
      parallel_for(0, M, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(N, 1)),
                   [&](int64_t r0, int64_t r1) {
                     for (int64_t r = r0; r < r1; ++r) {
                       const double ms = N > 0 ? sum_squares(xp + r * N, N) / double(N) : NAN;
                       const T rs = T(1.0 / std::sqrt(ms + e));
                       rp[r] = rs;
                       normalize_row(xp + r * N, yp + r * N, N, T(0), rs, wp, (const T*)nullptr);
                     }
                   });
    }
  });
  return {y.to(input.dtype()), rstd};
}

// PyTorch 1.13 has no rms_norm: the node is named after later versions' fused one.
Tensor rms_norm(const Tensor& input, IntArrayRef normalized_shape, RMSNormFuncOptions o) {
  autograd::Recorder rec("rms_norm", {&input, &o.weight});
  auto [out, rstd] = rms_norm_forward(input, normalized_shape, o.weight, o.eps);
  if (rec)
    rec.record("FusedRmsNormBackward0", {out}, {input, o.weight, rstd},
               [shape = DimVector(normalized_shape), eps = o.eps](const Grads& g,
                                                                  const Saved& s) {
                 Tensor rstd = s[2];
                 if (is_grad_enabled()) {  // Note [Norm autograd]
                   const Tensor x = s[0].to(rstd.dtype());
                   const double e = eps.value_or(
                       rstd.dtype() == kFloat64 ? std::numeric_limits<double>::epsilon()
                                                : double(std::numeric_limits<float>::epsilon()));
                   rstd = ((x * x).mean(dims_from(x.dim(), x.dim() - int64_t(shape.size())),
                                        true) + e).pow(-0.5);
                 }
                 auto [gi, gw] = rms_norm_backward(g[0], s[0], shape, rstd, s[1]);
                 return TensorList{gi, gw};
               });
  return out;
}

// ── group_norm ───────────────────────────────────────────────────────────
std::tuple<Tensor, Tensor, Tensor> group_norm_forward(const Tensor& input, int64_t G,
                                                      const Tensor& weight, const Tensor& bias,
                                                      double eps) {
  const char* op = "group_norm";
  EMBER_CHECK(input.dim() >= 2, op, "Expected at least 2 dimensions for input tensor but ",
              "received ", input.dim());
  const int64_t N = input.size(0), C = input.size(1);
  EMBER_CHECK(G > 0 && C % G == 0, op, "Expected number of channels in input to be divisible ",
              "by num_groups, but got input of shape ", input.sizes(), " and num_groups=", G);
  EMBER_CHECK(!weight.defined() || (weight.dim() == 1 && weight.numel() == C), op,
              "Expected weight to be a vector of size equal to the number of channels in ",
              "input, but got weight of shape ", weight.defined() ? weight.sizes() : IntArrayRef(),
              " and input of shape ", input.sizes());
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.numel() == C), op,
              "Expected bias to be a vector of size equal to the number of channels in ",
              "input, but got bias of shape ", bias.defined() ? bias.sizes() : IntArrayRef(),
              " and input of shape ", input.sizes());
  EMBER_CHECK(input.is_floating_point(), op, "not implemented for dtype ", input.dtype());
  const int64_t S = N * C > 0 ? input.numel() / (N * C) : 0, D = C / G;  // D channels a group
  const Dtype cd = opmath(input.dtype());
  const Tensor x = prepare(input, cd);
  const Tensor w = weight.defined() ? prepare(weight, cd) : Tensor();
  const Tensor b = bias.defined() ? prepare(bias, cd) : Tensor();
  Tensor y = empty(x.sizes(), {.dtype = cd});
  Tensor mean = empty({N, G}, {.dtype = cd}), rstd = empty({N, G}, {.dtype = cd});
  dispatch<DtypeSet::Floating>(cd, op, [&]<class T>() {
    if constexpr (cpu::simd_type_v<T>) {
      const T* xp = x.data_ptr<T>();
      T* yp = y.data_ptr<T>();
      T* mp = mean.data_ptr<T>();
      T* rp = rstd.data_ptr<T>();
      const T* wp = ptr_or_null<T>(w);
      const T* bp = ptr_or_null<T>(b);
      const int64_t len = D * S;  // one (n, g) group is a contiguous run
      parallel_for(0, N * G, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(len, 1)),
                   [&](int64_t a, int64_t e) {
                     for (int64_t ng = a; ng < e; ++ng) {
                       Moments m;
                       accumulate(xp + ng * len, len, m);
                       const double rs = 1.0 / std::sqrt(m.var() + eps);
                       mp[ng] = T(m.mean);
                       rp[ng] = T(rs);
                       const int64_t g = ng % G;
                       for (int64_t d = 0; d < D; ++d) {
                         const int64_t c = g * D + d;
                         const double sc = rs * (wp ? double(wp[c]) : 1.0);
                         const double sh = (bp ? double(bp[c]) : 0.0) - m.mean * sc;
                         const int64_t off = ng * len + d * S;
                         affine(xp + off, yp + off, S, T(sc), T(sh));
                       }
                     }
                   });
    }
  });
  return {y.to(input.dtype()), mean, rstd};
}

Tensor group_norm(const Tensor& input, int64_t num_groups, GroupNormFuncOptions o) {
  autograd::Recorder rec("group_norm", {&input, &o.weight, &o.bias});
  auto [out, mean, rstd] = group_norm_forward(input, num_groups, o.weight, o.bias, o.eps);
  if (rec)
    rec.record("NativeGroupNormBackward0", {out}, {input, o.weight, mean, rstd},
               [G = num_groups, eps = o.eps, has_bias = o.bias.defined()](const Grads& g,
                                                                          const Saved& s) {
                 Tensor mean = s[2], rstd = s[3];
                 if (is_grad_enabled()) {  // Note [Norm autograd]
                   const int64_t N = s[0].size(0);
                   std::tie(mean, rstd) = moments(s[0].to(mean.dtype()).reshape({N, G, -1}),
                                                  {2}, eps);
                   mean = mean.reshape({N, G}), rstd = rstd.reshape({N, G});
                 }
                 auto [gi, gw, gb] = group_norm_backward(g[0], s[0], G, mean, rstd, s[1],
                                                         {true, s[1].defined(), false});
                 return TensorList{gi, gw,
                                   has_bias ? sum_over(g[0], dims_except(s[0].dim(), 1))
                                            : Tensor()};
               });
  return out;
}

// ── backward ─────────────────────────────────────────────────────────────
// Written with public ops over the saved statistics (xhat = (x - mean) * invstd):
//   dbias = Σ dy, dweight = Σ dy xhat, and for the batch statistics
//   dx = invstd w (dy - mean(dy) - xhat mean(dy xhat)), the means over the reduced elements.
namespace {

// x reshaped so that the statistic s (one per group of reduced elements) broadcasts against it.
Tensor grad_like(const Tensor& g, const Tensor& like) { return g.to(like.dtype()); }

// Σ dy and Σ dy (x - mean) over one contiguous plane, in SIMD registers of T.
template <class T>
std::pair<double, double> plane_grad_sums(const T* x, const T* dy, int64_t n, T mean) {
  constexpr int W = Vec<T>::size;
  Vec<T> a(T(0)), b(T(0));
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    const Vec<T> g = Vec<T>::load(dy + i);
    a = a + g;
    b = b + g * (Vec<T>::load(x + i) - Vec<T>(mean));
  }
  T sa = hsum(a), sb = hsum(b);
  for (; i < n; ++i) {
    sa += dy[i];
    sb += dy[i] * (x[i] - mean);
  }
  return {double(sa), double(sb)};
}

// Note [Fused batch norm backward]
// The composite formula below reads the activations about eight times; a CNN's step spends a
// large share of its time there. For contiguous planes (Note [Batch norm layouts]) and no
// create_graph, two sweeps do it: per-plane sums of dy and dy (x - mean), merged per channel in
// double, then dx = (dy - (x - mean) k - Σdy / M) invstd w with k = Σdy(x - mean) invstd² / M —
// PyTorch's CPU kernel's form.
template <class T>
void batch_norm_backward_planar(const T* x, const T* dy, T* gi, int64_t N, int64_t C, int64_t S,
                                const T* mean, const T* invstd, const T* w, bool training,
                                T* gw, T* gb) {
  const int64_t P = N * C;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / S);
  std::vector<double> sum_dy(static_cast<size_t>(C)), dot(static_cast<size_t>(C));
  if (training || gw || gb) {
    std::vector<std::pair<double, double>> planes(static_cast<size_t>(P));
    parallel_for(0, P, grain, [&](int64_t a, int64_t b) {
      for (int64_t p = a; p < b; ++p)
        planes[size_t(p)] = plane_grad_sums(x + p * S, dy + p * S, S, mean[p % C]);
    });
    for (int64_t p = 0; p < P; ++p) {
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
  std::vector<T> k(static_cast<size_t>(C)), grad_mean(static_cast<size_t>(C)),
      scale(static_cast<size_t>(C));
  for (int64_t c = 0; c < C; ++c) {
    const double is = double(invstd[c]);
    k[size_t(c)] = training ? T(dot[size_t(c)] * is * is / M) : T(0);
    grad_mean[size_t(c)] = training ? T(sum_dy[size_t(c)] / M) : T(0);
    scale[size_t(c)] = T(is * (w ? double(w[c]) : 1.0));
  }
  parallel_for(0, P, grain, [&](int64_t a, int64_t b) {
    constexpr int W = Vec<T>::size;
    for (int64_t p = a; p < b; ++p) {
      const size_t c = size_t(p % C);
      const T* xp = x + p * S;
      const T* gp = dy + p * S;
      T* op = gi + p * S;
      const T m = mean[c], kc = k[c], gm = grad_mean[c], sc = scale[c];
      int64_t i = 0;
      for (; i + W <= S; i += W) {
        const Vec<T> d = Vec<T>::load(xp + i) - Vec<T>(m);
        ((Vec<T>::load(gp + i) - d * Vec<T>(kc) - Vec<T>(gm)) * Vec<T>(sc)).store(op + i);
      }
      for (; i < S; ++i) op[i] = (gp[i] - (xp[i] - m) * kc - gm) * sc;
    }
  });
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                       const Tensor& weight,
                                                       const Tensor& save_mean,
                                                       const Tensor& save_invstd, bool training,
                                                       std::array<bool, 3> mask) {
  const Dtype cd = opmath(input.dtype());
  const int64_t C = input.size(1);
  const int64_t N = input.size(0), S = input.numel() / std::max<int64_t>(1, N * C);
  if (!is_grad_enabled() && S >= kPlanarMin && input.dtype() == cd && grad_out.dtype() == cd) {
    // Note [Fused batch norm backward]
    const Tensor x = input.contiguous(), dy = grad_out.contiguous();
    const Tensor mean = prepare(save_mean, cd), invstd = prepare(save_invstd, cd);
    const Tensor w = weight.defined() ? prepare(weight, cd) : Tensor();
    Tensor gi = mask[0] ? empty(input.sizes(), {.dtype = cd}) : Tensor();
    Tensor gw = mask[1] && weight.defined() ? empty({C}, {.dtype = cd}) : Tensor();
    Tensor gb = mask[2] && weight.defined() ? empty({C}, {.dtype = cd}) : Tensor();
    dispatch<DtypeSet::Floating>(cd, "batch_norm_backward", [&]<class T>() {
      if constexpr (cpu::simd_type_v<T>)
        batch_norm_backward_planar<T>(x.data_ptr<T>(), dy.data_ptr<T>(), ptr_or_null<T>(gi),
                                      N, C, S, mean.data_ptr<T>(), invstd.data_ptr<T>(),
                                      ptr_or_null<T>(w), training, ptr_or_null<T>(gw),
                                      ptr_or_null<T>(gb));
    });
    return {gi, gw.defined() ? gw.to(weight.dtype()) : gw,
            gb.defined() ? gb.to(weight.dtype()) : gb};
  }
  DimVector bshape(size_t(input.dim()), 1);  // (1, C, 1, ...)
  bshape[1] = C;
  DimVector red;  // every dim but 1
  for (int64_t d = 0; d < input.dim(); ++d)
    if (d != 1) red.push_back(d);
  const Tensor x = input.to(cd), dy = grad_out.to(cd);
  const Tensor mean = save_mean.to(cd).view(bshape), invstd = save_invstd.to(cd).view(bshape);
  const Tensor w = weight.defined() ? weight.to(cd).view(bshape) : ones(bshape, {.dtype = cd});
  const Tensor xhat = (x - mean) * invstd;
  const Tensor sum_dy = dy.sum(red, true), sum_dy_xhat = (dy * xhat).sum(red, true);
  Tensor gi, gw, gb;
  if (mask[0]) {
    if (training) {
      const double M = double(input.numel() / std::max<int64_t>(C, 1));
      gi = (dy - sum_dy / M - xhat * (sum_dy_xhat / M)) * (invstd * w);
    } else {
      gi = dy * (invstd * w);
    }
    gi = grad_like(gi, input);
  }
  if (mask[1] && weight.defined()) gw = grad_like(sum_dy_xhat.view({C}), weight);
  if (mask[2] && weight.defined()) gb = grad_like(sum_dy.view({C}), weight);
  return {gi, gw, gb};
}

std::tuple<Tensor, Tensor, Tensor> layer_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                       IntArrayRef normalized_shape,
                                                       const Tensor& mean, const Tensor& rstd,
                                                       const Tensor& weight,
                                                       std::array<bool, 3> mask) {
  const Dtype cd = opmath(input.dtype());
  const int64_t nd = int64_t(normalized_shape.size()), axis = input.dim() - nd;
  DimVector inner, outer;
  for (int64_t d = 0; d < input.dim(); ++d) (d < axis ? outer : inner).push_back(d);
  const Tensor x = input.to(cd), dy = grad_out.to(cd);
  const Tensor xhat = (x - mean.to(cd)) * rstd.to(cd);
  const Tensor dyw = weight.defined() ? dy * weight.to(cd) : dy;
  Tensor gi, gw, gb;
  if (mask[0]) {
    const Tensor a = dyw.mean(inner, true), b = (dyw * xhat).mean(inner, true);
    gi = grad_like((dyw - a - xhat * b) * rstd.to(cd), input);
  }
  if (weight.defined()) {
    if (mask[1]) gw = grad_like(outer.empty() ? dy * xhat : (dy * xhat).sum(outer), weight);
    if (mask[2]) gb = grad_like(outer.empty() ? dy : dy.sum(outer), weight);
  }
  return {gi, gw, gb};
}

std::tuple<Tensor, Tensor, Tensor> group_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                       int64_t G, const Tensor& mean,
                                                       const Tensor& rstd, const Tensor& weight,
                                                       std::array<bool, 3> mask) {
  const Dtype cd = opmath(input.dtype());
  const int64_t N = input.size(0), C = input.size(1);
  const Tensor x = input.to(cd).reshape({N, G, -1}), dy = grad_out.to(cd).reshape({N, G, -1});
  const Tensor mu = mean.to(cd).view({N, G, 1}), rs = rstd.to(cd).view({N, G, 1});
  const Tensor xhat = (x - mu) * rs;  // (N, G, D * S)
  DimVector wshape(size_t(input.dim()), 1);
  wshape[1] = C;
  Tensor dyw = dy;
  if (weight.defined())
    dyw = (grad_out.to(cd) * weight.to(cd).view(wshape)).reshape({N, G, -1});
  Tensor gi, gw, gb;
  if (mask[0]) {
    const Tensor a = dyw.mean(2, true), b = (dyw * xhat).mean(2, true);
    gi = grad_like(((dyw - a - xhat * b) * rs).view(input.sizes()), input);
  }
  if (weight.defined()) {
    // Per channel: sum over n and the spatial dims of dy * xhat and dy.
    const Tensor dyc = grad_out.to(cd).reshape({N, C, -1});
    const Tensor xhc = xhat.reshape({N, C, -1});
    if (mask[1]) gw = grad_like((dyc * xhc).sum({0, 2}), weight);
    if (mask[2]) gb = grad_like(dyc.sum({0, 2}), weight);
  }
  return {gi, gw, gb};
}

std::tuple<Tensor, Tensor> rms_norm_backward(const Tensor& grad_out, const Tensor& input,
                                             IntArrayRef normalized_shape, const Tensor& rstd,
                                             const Tensor& weight) {
  // y = x r w with r = (mean(x^2) + eps)^-1/2: dx = r (dyw - x r^2 mean(dyw x)).
  const Dtype cd = opmath(input.dtype());
  const int64_t nd = int64_t(normalized_shape.size()), axis = input.dim() - nd;
  DimVector inner, outer;
  for (int64_t d = 0; d < input.dim(); ++d) (d < axis ? outer : inner).push_back(d);
  const Tensor x = input.to(cd), dy = grad_out.to(cd), r = rstd.to(cd);
  const Tensor dyw = weight.defined() ? dy * weight.to(cd) : dy;
  const Tensor gi = grad_like(r * (dyw - x * (r * r) * (dyw * x).mean(inner, true)), input);
  Tensor gw;
  if (weight.defined()) {
    const Tensor t = dy * x * r;
    gw = grad_like(outer.empty() ? t : t.sum(outer), weight);
  }
  return {gi, gw};
}

}  // namespace ember::nn::functional
