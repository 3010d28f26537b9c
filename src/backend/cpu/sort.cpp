// CPU kernels of sorting along a dim (src/ops/sort.cpp): sort/argsort and topk, one line per
// task; NaN is the largest value. The selections (kthvalue, median, mode) are in sort_select.cpp.
#include "backend/cpu/sort.h"

#include <algorithm>
#include <vector>

#include "backend/cpu/kernels.h"
#include "backend/cpu/lines.h"
#include "backend/cpu/raw_elements.h"
#include "core/convert.h"
#include "core/dispatch.h"

namespace ember::cpu {
namespace {

// Note [Matching PyTorch's ties]
// topk runs std::partial_sort / std::nth_element + std::sort on (value, index) pairs with
// PyTorch's comparators, kthvalue runs the quickselect of PyTorch's Sorting.cpp, and mode sorts
// (value, index) pairs with std::sort: with the same standard library these make the same
// comparisons and swaps, so they report the same index among equal values; median/nanmedian
// run std::nth_element with PyTorch's comparators for the same reason, and sort(stable=false)
// runs std::sort; stable=true keeps equal values in input order, as PyTorch promises.

// Lines are sorted as (key, index) pairs (order_key_t: three key types, not ten dtypes).
template <class K>
using Keyed = std::vector<std::pair<K, int64_t>>;

template <class K>
void sort_line(Keyed<K>& buf, bool descending, bool stable) {
  using Elem = std::pair<K, int64_t>;
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
}

// The k first of q under largest/smallest (sorted among themselves if `sorted`), by PyTorch's
// choice of algorithm (Note [Matching PyTorch's ties]).
template <class K>
void select_line(Keyed<K>& q, int64_t k, bool largest, bool sorted) {
  using Elem = std::pair<K, int64_t>;
  auto select = [&](auto cmp) {
    if (k * 64 <= int64_t(q.size())) {
      std::partial_sort(q.begin(), q.begin() + k, q.end(), cmp);
    } else {
      std::nth_element(q.begin(), q.begin() + k - 1, q.end(), cmp);
      if (sorted) std::sort(q.begin(), q.begin() + k - 1, cmp);
    }
  };
  if (largest)
    select([](const Elem& x, const Elem& y) { return gt_nan_first(x.first, y.first); });
  else
    select([](const Elem& x, const Elem& y) { return lt_nan_last(x.first, y.first); });
}

void sort_kernel(const Tensor& values, const Tensor& indices, const Tensor& s, int64_t dim,
                 bool descending, bool stable) {
  const Lines l = lines_of(s, dim);
  dispatch(s.dtype(), "sort", [&]<class T>() {
    using K = order_key_t<T>;
    const T* in = s.data_ptr<T>();
    T* ov = values.data_ptr<T>();
    int64_t* oi = indices.data_ptr<int64_t>();
    for_lines(l.count(), l.n * 8, [&](int64_t b, int64_t e) {
      Keyed<K> buf(size_t(l.n));
      for (int64_t r = b; r < e; ++r) {
        const int64_t base = l.base(r, l.n);
        for (int64_t j = 0; j < l.n; ++j) buf[size_t(j)] = {K(in[base + j * l.inner]), j};
        sort_line(buf, descending, stable);
        for (int64_t j = 0; j < l.n; ++j) {
          const int64_t from = buf[size_t(j)].second;
          ov[base + j * l.inner] = in[base + from * l.inner];  // the original bits (half, -0.0)
          oi[base + j * l.inner] = from;
        }
      }
    });
  });
}

void topk_kernel(const Tensor& values, const Tensor& indices, const Tensor& s, int64_t k,
                 int64_t dim, bool largest, bool sorted) {
  const Lines l = lines_of(s, dim);
  const int64_t n = l.n;
  dispatch<DtypeSet::Numeric>(s.dtype(), "topk", [&]<class T>() {
    using K = order_key_t<T>;
    const T* in = s.data_ptr<T>();
    T* ov = values.data_ptr<T>();
    int64_t* oi = indices.data_ptr<int64_t>();
    for_lines(l.count(), n * 4, [&](int64_t b, int64_t e) {
      Keyed<K> q(size_t(l.n));
      for (int64_t r = b; r < e; ++r) {
        const int64_t base = l.base(r, l.n);
        for (int64_t j = 0; j < l.n; ++j) q[size_t(j)] = {K(in[base + j * l.inner]), j};
        select_line(q, k, largest, sorted);
        const int64_t out_base = l.base(r, k);
        for (int64_t j = 0; j < k; ++j) {
          const int64_t from = q[size_t(j)].second;
          ov[out_base + j * l.inner] = in[base + from * l.inner];
          oi[out_base + j * l.inner] = from;
        }
      }
    });
  });
}

}  // namespace

void add_sort_kernels(backend::Backend& b) {
  b.sort.sort = &sort_kernel;
  b.sort.topk = &topk_kernel;
  add_sort_select_kernels(b);
}

}  // namespace ember::cpu
