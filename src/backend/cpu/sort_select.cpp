// CPU kernels of selection along a dim (src/ops/sort.cpp): kthvalue, median/nanmedian (along a
// dim and of all elements) and mode, one line per task; NaN is the largest value. They pick the
// index PyTorch reports among equal values (Note [Matching PyTorch's ties] in sort.cpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "backend/cpu/kernels.h"
#include "backend/cpu/lines.h"
#include "backend/cpu/raw_elements.h"
#include "backend/cpu/sort.h"
#include "core/convert.h"
#include "core/dispatch.h"

namespace ember::cpu {
namespace {

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

// The position of the lower median of one line's keys v (idx is scratch of v's size), ties broken
// by position: the first NaN unless ignore_nan, which leaves NaNs out.
template <class C>
int64_t median_pick(const std::vector<C>& v, std::vector<int64_t>& idx, bool ignore_nan) {
  const int64_t n = int64_t(v.size());
  int64_t nans = 0, first_nan = -1;
  for (int64_t j = 0; j < n; ++j) {
    if (!is_nan(v[size_t(j)])) continue;
    if (first_nan < 0) first_nan = j;
    ++nans;
  }
  if (nans && !ignore_nan) return first_nan;
  std::iota(idx.begin(), idx.end(), 0);
  const auto nth = idx.begin() + (n - nans - 1) / 2;
  // PyTorch's comparators, so all-NaN rows of nanmedian report the same index.
  std::nth_element(idx.begin(), nth, idx.end(), [&](int64_t i, int64_t j) {
    const C a = v[size_t(i)], c = v[size_t(j)];
    return a < c || (a == c && i < j) || (ignore_nan && is_nan(c) && !is_nan(a));
  });
  return *nth;
}

void kthvalue_kernel(const Tensor& values, const Tensor& indices, const Tensor& s, int64_t k,
                     int64_t dim) {
  const Lines l = lines_of(s, dim);
  const int64_t n = l.n;
  dispatch<DtypeSet::Numeric>(s.dtype(), "kthvalue", [&]<class T>() {
    using C = order_key_t<T>;
    const T* in = s.data_ptr<T>();
    T* ov = values.data_ptr<T>();
    int64_t* oi = indices.data_ptr<int64_t>();
    for_lines(l.count(), n * 4, [&](int64_t b, int64_t e) {
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
}

// Lower median along dim, ties broken by index. Without ignore_nan a NaN (the first one) is the
// result; with it, NaNs are left out.
void median_kernel(const char* op, const Tensor& values, const Tensor& indices, const Tensor& s,
                   int64_t dim, bool ignore_nan) {
  const Lines l = lines_of(s, dim);
  const int64_t n = l.n;
  dispatch<DtypeSet::Numeric>(s.dtype(), op, [&]<class T>() {
    using C = order_key_t<T>;
    const T* in = s.data_ptr<T>();
    T* ov = values.data_ptr<T>();
    int64_t* oi = indices.data_ptr<int64_t>();
    for_lines(l.count(), n * 4, [&](int64_t b, int64_t e) {
      std::vector<C> v(size_t(l.n));
      std::vector<int64_t> idx(size_t(l.n));
      for (int64_t r = b; r < e; ++r) {
        const int64_t base = l.base(r, l.n);
        for (int64_t j = 0; j < l.n; ++j) v[size_t(j)] = C(in[base + j * l.inner]);
        const int64_t pick = median_pick(v, idx, ignore_nan);
        oi[r] = pick;
        ov[r] = in[base + pick * l.inner];
      }
    });
  });
}

void median_all_kernel(const char* op, const Tensor& out, const Tensor& s, bool ignore_nan) {
  dispatch<DtypeSet::Numeric>(s.dtype(), op, [&]<class T>() {
    using C = order_key_t<T>;
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
        fail(op, "median() of an empty tensor is undefined for dtype ", s.dtype());
      return;
    }
    const auto nth = v.begin() + (int64_t(v.size()) - 1) / 2;
    std::nth_element(v.begin(), nth, v.end());
    *o = T(*nth);
  });
}

void mode_kernel(const Tensor& values, const Tensor& indices, const Tensor& s, int64_t dim) {
  const Lines l = lines_of(s, dim);
  const int64_t n = l.n;
  dispatch(s.dtype(), "mode", [&]<class T>() {
    using C = order_key_t<T>;
    const T* in = s.data_ptr<T>();
    T* ov = values.data_ptr<T>();
    int64_t* oi = indices.data_ptr<int64_t>();
    for_lines(l.count(), n * 8, [&](int64_t b, int64_t e) {
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
}

}  // namespace

void add_sort_select_kernels(backend::Backend& b) {
  b.sort.kthvalue = &kthvalue_kernel;
  b.sort.median = &median_kernel;
  b.sort.median_all = &median_all_kernel;
  b.sort.mode = &mode_kernel;
}

}  // namespace ember::cpu
