// Sorting and selection along a dim: sort/argsort (stable; NaN is the largest value), topk,
// kthvalue, median/nanmedian and mode. Where PyTorch's result depends on its algorithm (the index
// reported among equal values), the same algorithm runs here: Note [Matching PyTorch's ties].
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "autograd/function.h"
#include "backend/cpu/parallel.h"
#include "core/convert.h"
#include "core/dispatch.h"
#include "ember/creation.h"
#include "ember/index_ops.h"
#include "ember/shape.h"
#include "ops/raw_elements.h"
#include "ops/reduce.h"

namespace ember {
namespace {

// Note [Matching PyTorch's ties]
// topk runs std::partial_sort / std::nth_element + std::sort on (value, index) pairs with
// PyTorch's comparators, kthvalue runs the quickselect of PyTorch's Sorting.cpp, and mode sorts
// (value, index) pairs with std::sort: with the same standard library these make the same
// comparisons and swaps, so they report the same index among equal values; median/nanmedian
// run std::nth_element with PyTorch's comparators for the same reason, and sort(stable=false)
// runs std::sort; stable=true keeps equal values in input order, as PyTorch promises.

// A contiguous tensor seen as `outer * inner` lines of length n along dim (stride inner).
struct Lines {
  int64_t outer = 1, n = 1, inner = 1;
  int64_t count() const { return outer * inner; }
  // Offset of line r's first element in a tensor whose dim has length len.
  int64_t base(int64_t r, int64_t len) const { return (r / inner) * len * inner + r % inner; }
};

Lines lines_of(const Tensor& t, int64_t dim) {
  Lines l;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d < dim)
      l.outer *= t.size(d);
    else if (d == dim)
      l.n = t.size(d);
    else
      l.inner *= t.size(d);
  }
  return l;
}

// Runs f(begin, end) over ranges of lines in parallel; `work` is the cost of one line.
template <class F>
void for_lines(const Lines& l, int64_t work, const F& f) {
  parallel_for(0, l.count(), std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, work)), f);
}

DimVector reduced_shape(const Tensor& t, int64_t dim, bool keepdim) {
  DimVector s;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d != dim)
      s.push_back(t.size(d));
    else if (keepdim)
      s.push_back(1);
  }
  return s;
}

// The k-th smallest (0-based) of v into v[k], carrying idx along: the Numerical Recipes
// quickselect (median-of-three pivot) that PyTorch's kthvalue uses, NaN counted largest.
template <class C>
void quick_select(std::vector<C>& v, std::vector<int64_t>& idx, int64_t k) {
  auto gt = [](C a, C b) { return gt_nan_first(a, b); };
  auto swap = [&](int64_t i, int64_t j) {
    std::swap(v[size_t(i)], v[size_t(j)]);
    std::swap(idx[size_t(i)], idx[size_t(j)]);
  };
  int64_t lo = 0, hi = int64_t(v.size()) - 1;
  while (true) {
    if (hi <= lo) return;
    if (hi == lo + 1) {
      if (gt(v[size_t(lo)], v[size_t(hi)])) swap(lo, hi);
      return;
    }
    const int64_t mid = lo + (hi - lo) / 2;
    swap(mid, lo + 1);
    if (gt(v[size_t(lo) + 1], v[size_t(hi)])) swap(lo + 1, hi);
    if (gt(v[size_t(lo)], v[size_t(hi)])) swap(lo, hi);
    if (gt(v[size_t(lo) + 1], v[size_t(lo)])) swap(lo + 1, lo);
    int64_t i = lo + 1, j = hi;
    const C pivot = v[size_t(lo)];
    while (true) {
      do ++i;
      while (gt(pivot, v[size_t(i)]));
      do --j;
      while (gt(v[size_t(j)], pivot));
      if (j < i) break;
      swap(i, j);
    }
    swap(lo, j);
    if (j <= k) lo = i;
    if (j >= k) hi = j - 1;
  }
}

}  // namespace

// ── sort / argsort ─────────────────────────────────────────────────────────────────────────

static std::tuple<Tensor, Tensor> sort_kernel(const Tensor& t, int64_t dim, bool descending, bool stable) {
  dim = wrap_dim(dim, t.dim(), "sort");
  Tensor values = empty(t.sizes(), t.options());
  Tensor indices = empty(t.sizes(), {.dtype = kInt64, .device = t.device()});
  if (t.numel() == 0) return {values, indices};
  const Tensor s = t.contiguous();
  const Lines l = t.dim() == 0 ? Lines{} : lines_of(s, dim);
  dispatch(t.dtype(), "sort", [&]<class T>() {
    using C = compute_t<T>;
    using Elem = std::pair<C, int64_t>;
    const T* in = s.data_ptr<T>();
    T* ov = values.data_ptr<T>();
    int64_t* oi = indices.data_ptr<int64_t>();
    for_lines(l, l.n * 8, [&](int64_t b, int64_t e) {
      std::vector<Elem> buf(size_t(l.n));
      for (int64_t r = b; r < e; ++r) {
        const int64_t base = l.base(r, l.n);
        for (int64_t j = 0; j < l.n; ++j) buf[size_t(j)] = {C(in[base + j * l.inner]), j};
        // stable=false is PyTorch's std::sort on the same pairs (Note [Matching PyTorch's ties]).
        auto run = [&](auto cmp) {
          if (stable)
            std::stable_sort(buf.begin(), buf.end(), cmp);
          else
            std::sort(buf.begin(), buf.end(), cmp);
        };
        if (descending)
          run([](const Elem& x, const Elem& y) { return gt_nan_first(x.first, y.first); });
        else
          run([](const Elem& x, const Elem& y) { return lt_nan_last(x.first, y.first); });
        for (int64_t j = 0; j < l.n; ++j) {
          const int64_t from = buf[size_t(j)].second;
          ov[base + j * l.inner] = in[base + from * l.inner];  // the original bits (half, -0.0)
          oi[base + j * l.inner] = from;
        }
      }
    });
  });
  return {values, indices};
}

Tensor argsort(const Tensor& t, int64_t dim, bool descending, bool stable) {
  return std::get<1>(sort(t, dim, descending, stable));
}

std::tuple<Tensor, Tensor> Tensor::sort(int64_t dim, bool descending) const {
  return ember::sort(*this, dim, descending, true);
}
Tensor Tensor::argsort(int64_t dim, bool descending) const {
  return ember::argsort(*this, dim, descending, true);
}

// ── topk / kthvalue ────────────────────────────────────────────────────────────────────────

static std::tuple<Tensor, Tensor> topk_kernel(const Tensor& t, int64_t k, int64_t dim, bool largest,
                                bool sorted) {
  dim = wrap_dim(dim, t.dim(), "topk");
  const int64_t n = t.dim() == 0 ? 1 : t.size(dim);
  EMBER_CHECK(k >= 0 && k <= n, "topk", "selected index k out of range (k = ", k,
              ", dimension size ", n, ")");
  DimVector shape(t.sizes());
  if (t.dim() > 0) shape[size_t(dim)] = k;
  Tensor values = empty(shape, t.options());
  Tensor indices = empty(shape, {.dtype = kInt64, .device = t.device()});
  if (k == 0 || t.numel() == 0) return {values, indices};
  const Tensor s = t.contiguous();
  const Lines l = t.dim() == 0 ? Lines{} : lines_of(s, dim);
  dispatch<DtypeSet::Numeric>(t.dtype(), "topk", [&]<class T>() {
    using C = compute_t<T>;
    using Elem = std::pair<C, int64_t>;
    const T* in = s.data_ptr<T>();
    T* ov = values.data_ptr<T>();
    int64_t* oi = indices.data_ptr<int64_t>();
    auto greater = [](const Elem& x, const Elem& y) { return gt_nan_first(x.first, y.first); };
    auto less = [](const Elem& x, const Elem& y) { return lt_nan_last(x.first, y.first); };
    for_lines(l, n * 4, [&](int64_t b, int64_t e) {
      std::vector<Elem> q(size_t(l.n));
      for (int64_t r = b; r < e; ++r) {
        const int64_t base = l.base(r, l.n);
        for (int64_t j = 0; j < l.n; ++j) q[size_t(j)] = {C(in[base + j * l.inner]), j};
        // PyTorch's choice of algorithm (Note [Matching PyTorch's ties]).
        auto select = [&](auto cmp) {
          if (k * 64 <= l.n) {
            std::partial_sort(q.begin(), q.begin() + k, q.end(), cmp);
          } else {
            std::nth_element(q.begin(), q.begin() + k - 1, q.end(), cmp);
            if (sorted) std::sort(q.begin(), q.begin() + k - 1, cmp);
          }
        };
        if (largest)
          select(greater);
        else
          select(less);
        const int64_t out_base = l.base(r, k);
        for (int64_t j = 0; j < k; ++j) {
          const int64_t from = q[size_t(j)].second;
          ov[out_base + j * l.inner] = in[base + from * l.inner];
          oi[out_base + j * l.inner] = from;
        }
      }
    });
  });
  return {values, indices};
}

std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest, bool sorted) const {
  return ember::topk(*this, k, dim, largest, sorted);
}

static std::tuple<Tensor, Tensor> kthvalue_kernel(const Tensor& t, int64_t k, int64_t dim, bool keepdim) {
  dim = wrap_dim(dim, t.dim(), "kthvalue");
  const int64_t n = t.dim() == 0 ? 1 : t.size(dim);
  EMBER_CHECK(k >= 1 && k <= n, "kthvalue", "selected number k out of range for dimension ", dim,
              " (k = ", k, ", size ", n, ")");
  const DimVector shape = reduced_shape(t, dim, keepdim);
  Tensor values = empty(shape, t.options());
  Tensor indices = empty(shape, {.dtype = kInt64, .device = t.device()});
  if (values.numel() == 0) return {values, indices};
  const Tensor s = t.contiguous();
  const Lines l = t.dim() == 0 ? Lines{} : lines_of(s, dim);
  dispatch<DtypeSet::Numeric>(t.dtype(), "kthvalue", [&]<class T>() {
    using C = compute_t<T>;
    const T* in = s.data_ptr<T>();
    T* ov = values.data_ptr<T>();
    int64_t* oi = indices.data_ptr<int64_t>();
    for_lines(l, n * 4, [&](int64_t b, int64_t e) {
      std::vector<C> v(size_t(l.n));
      std::vector<int64_t> idx(size_t(l.n));
      for (int64_t r = b; r < e; ++r) {
        const int64_t base = l.base(r, l.n);
        for (int64_t j = 0; j < l.n; ++j) v[size_t(j)] = C(in[base + j * l.inner]);
        std::iota(idx.begin(), idx.end(), 0);
        quick_select(v, idx, k - 1);
        oi[r] = idx[size_t(k) - 1];
        ov[r] = in[base + oi[r] * l.inner];
      }
    });
  });
  return {values, indices};
}

// ── median / nanmedian / mode ──────────────────────────────────────────────────────────────

namespace {

Tensor median_all(const Tensor& t, bool ignore_nan, const char* op) {
  Tensor out = empty({}, t.options());
  const Tensor s = t.contiguous();
  dispatch<DtypeSet::Numeric>(t.dtype(), op, [&]<class T>() {
    using C = compute_t<T>;
    const T* in = s.data_ptr<T>();
    std::vector<C> v;
    v.reserve(size_t(s.numel()));
    bool any_nan = false;
    for (int64_t i = 0; i < s.numel(); ++i) {
      const C x = C(in[i]);
      if (is_nan(x))
        any_nan = true;
      else
        v.push_back(x);
    }
    T* o = out.data_ptr<T>();
    if (v.empty() || (any_nan && !ignore_nan)) {
      if constexpr (std::numeric_limits<C>::has_quiet_NaN)
        *o = T(std::numeric_limits<C>::quiet_NaN());
      else
        fail(op, "median() of an empty tensor is undefined for dtype ", t.dtype());
      return;
    }
    const auto nth = v.begin() + (int64_t(v.size()) - 1) / 2;
    std::nth_element(v.begin(), nth, v.end());
    *o = T(*nth);
  });
  return out;
}

// Lower median along dim, ties broken by index. Without ignore_nan a NaN (the first one) is the
// result; with it, NaNs are left out.
std::tuple<Tensor, Tensor> median_dim(const Tensor& t, int64_t dim, bool keepdim, bool ignore_nan,
                                      const char* op) {
  dim = wrap_dim(dim, t.dim(), op);
  const int64_t n = t.dim() == 0 ? 1 : t.size(dim);
  EMBER_CHECK(n > 0 || t.numel() == 0 || t.dim() == 0, op,
              "median() cannot compute the median of an empty dimension");
  const DimVector shape = reduced_shape(t, dim, keepdim);
  Tensor values = empty(shape, t.options());
  Tensor indices = empty(shape, {.dtype = kInt64, .device = t.device()});
  if (values.numel() == 0) return {values, indices};
  EMBER_CHECK(n > 0, op, "median() cannot compute the median of an empty dimension");
  const Tensor s = t.contiguous();
  const Lines l = t.dim() == 0 ? Lines{} : lines_of(s, dim);
  dispatch<DtypeSet::Numeric>(t.dtype(), op, [&]<class T>() {
    using C = compute_t<T>;
    const T* in = s.data_ptr<T>();
    T* ov = values.data_ptr<T>();
    int64_t* oi = indices.data_ptr<int64_t>();
    for_lines(l, n * 4, [&](int64_t b, int64_t e) {
      std::vector<int64_t> idx(size_t(l.n));
      for (int64_t r = b; r < e; ++r) {
        const int64_t base = l.base(r, l.n);
        auto at = [&](int64_t j) { return C(in[base + j * l.inner]); };
        int64_t nans = 0, first_nan = -1;
        for (int64_t j = 0; j < l.n; ++j) {
          if (!is_nan(at(j))) continue;
          if (first_nan < 0) first_nan = j;
          ++nans;
        }
        int64_t pick;
        if (nans && !ignore_nan) {
          pick = first_nan;
        } else {
          std::iota(idx.begin(), idx.end(), 0);
          const auto nth = idx.begin() + (l.n - nans - 1) / 2;
          // PyTorch's comparators, so all-NaN rows of nanmedian report the same index.
          std::nth_element(idx.begin(), nth, idx.end(), [&](int64_t i, int64_t j) {
            const C a = at(i), c = at(j);
            return a < c || (a == c && i < j) || (ignore_nan && is_nan(c) && !is_nan(a));
          });
          pick = *nth;
        }
        oi[r] = pick;
        ov[r] = in[base + pick * l.inner];
      }
    });
  });
  return {values, indices};
}

}  // namespace

static std::tuple<Tensor, Tensor> mode_kernel(const Tensor& t, int64_t dim, bool keepdim) {
  dim = wrap_dim(dim, t.dim(), "mode");
  const int64_t n = t.dim() == 0 ? 1 : t.size(dim);
  const DimVector shape = reduced_shape(t, dim, keepdim);
  Tensor values = empty(shape, t.options());
  Tensor indices = empty(shape, {.dtype = kInt64, .device = t.device()});
  if (values.numel() == 0) return {values, indices};
  EMBER_CHECK(n > 0, "mode", "Expected reduction dim ", dim, " to have non-zero size.");
  const Tensor s = t.contiguous();
  const Lines l = t.dim() == 0 ? Lines{} : lines_of(s, dim);
  dispatch(t.dtype(), "mode", [&]<class T>() {
    using C = compute_t<T>;
    const T* in = s.data_ptr<T>();
    T* ov = values.data_ptr<T>();
    int64_t* oi = indices.data_ptr<int64_t>();
    for_lines(l, n * 8, [&](int64_t b, int64_t e) {
      std::vector<std::pair<C, int64_t>> el(size_t(l.n));
      for (int64_t r = b; r < e; ++r) {
        const int64_t base = l.base(r, l.n);
        for (int64_t j = 0; j < l.n; ++j) el[size_t(j)] = {C(in[base + j * l.inner]), j};
        std::sort(el.begin(), el.end(),
                  [](const auto& x, const auto& y) { return x.first < y.first; });
        // The longest run wins; among equally long runs the first (smallest value), reporting
        // the index at the end of the run.
        int64_t best = 0, best_len = 0, run = 0;
        for (int64_t j = 0; j < l.n; ++j) {
          ++run;
          if (j == l.n - 1 || el[size_t(j)].first != el[size_t(j) + 1].first) {
            if (run > best_len) {
              best_len = run;
              best = el[size_t(j)].second;
            }
            run = 0;
          }
        }
        oi[r] = best;
        ov[r] = in[base + best * l.inner];
      }
    });
  });
  return {values, indices};
}

// ── gradients: the selected values' gradient goes back to their indices ──────────────────────
namespace {

using autograd::Grads;
using autograd::Recorder;
using autograd::Saved;
using autograd::TensorList;

// Runs `kernel` (-> values, indices along `dim`) and records `node` for the values.
template <class F>
std::tuple<Tensor, Tensor> selecting(const char* op, const char* node, const Tensor& t,
                                     int64_t dim, bool keepdim, F kernel) {
  Recorder rec(op, {&t});
  auto [values, indices] = kernel();
  if (rec)
    rec.record(node, {values}, {indices},
               [dim = t.dim() == 0 ? int64_t(0) : wrap_dim(dim, t.dim(), op), keepdim,
                sizes = DimVector(t.sizes())](const Grads& g, const Saved& s) {
                 return TensorList{value_selecting_backward(g[0], dim, s[0], sizes, keepdim)};
               });
  return {values, indices};
}

// median() / nanmedian(): the gradient shared among the elements equal to the result.
Tensor median_recorded(const Tensor& t, bool ignore_nan, const char* op, const char* node) {
  Recorder rec(op, {&t});
  Tensor out = median_all(t, ignore_nan, op);
  if (rec)
    rec.record(node, {out}, {t},
               [](const Grads& g, const Saved& s) {
                 return TensorList{evenly_distribute_backward(g[0], s[0], s[1])};
               },
               {out});
  return out;
}

}  // namespace

std::tuple<Tensor, Tensor> sort(const Tensor& t, int64_t dim, bool descending, bool stable) {
  return selecting("sort", "SortBackward0", t, dim, true,
                   [&] { return sort_kernel(t, dim, descending, stable); });
}
std::tuple<Tensor, Tensor> topk(const Tensor& t, int64_t k, int64_t dim, bool largest,
                                bool sorted) {
  return selecting("topk", "TopkBackward0", t, dim, true,
                   [&] { return topk_kernel(t, k, dim, largest, sorted); });
}
std::tuple<Tensor, Tensor> kthvalue(const Tensor& t, int64_t k, int64_t dim, bool keepdim) {
  return selecting("kthvalue", "KthvalueBackward0", t, dim, keepdim,
                   [&] { return kthvalue_kernel(t, k, dim, keepdim); });
}
std::tuple<Tensor, Tensor> mode(const Tensor& t, int64_t dim, bool keepdim) {
  return selecting("mode", "ModeBackward0", t, dim, keepdim,
                   [&] { return mode_kernel(t, dim, keepdim); });
}

Tensor median(const Tensor& t) {
  return median_recorded(t, false, "median", "MedianBackward0");
}
Tensor nanmedian(const Tensor& t) {
  return median_recorded(t, true, "nanmedian", "NanmedianBackward0");
}
std::tuple<Tensor, Tensor> median(const Tensor& t, int64_t dim, bool keepdim) {
  return selecting("median", "MedianBackward1", t, dim, keepdim,
                   [&] { return median_dim(t, dim, keepdim, false, "median"); });
}
std::tuple<Tensor, Tensor> nanmedian(const Tensor& t, int64_t dim, bool keepdim) {
  return selecting("nanmedian", "NanmedianBackward1", t, dim, keepdim,
                   [&] { return median_dim(t, dim, keepdim, true, "nanmedian"); });
}

}  // namespace ember
