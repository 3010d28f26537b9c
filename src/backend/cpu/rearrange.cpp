// CPU kernels of the rearranging family (src/ops/rearrange.cpp; backend/rearrange_kernels.h):
// flip, tril/triu, trace, repeat_interleave, one_hot, searchsorted and unique. Kernels that
// only move elements dispatch on the element size, the rest on the dtype.
#include <algorithm>
#include <numeric>
#include <vector>

#include "backend/buffers.h"
#include "backend/cpu/kernels.h"
#include "backend/cpu/loop.h"
#include "backend/cpu/raw_elements.h"
#include "core/convert.h"
#include "core/dispatch.h"
#include "core/parallel.h"

namespace ember::cpu {
namespace {

void flip(const Tensor& out, const Tensor& t, IntArrayRef dims) {
  // Read t through strides negated on the flipped dims, starting from their last element.
  const int64_t e = t.element_size();
  char* src = static_cast<char*>(t.data_ptr());
  DimVector ss = byte_strides(t.strides(), e);
  for (int64_t d : dims) {
    src += (t.size(d) - 1) * ss[size_t(d)];
    ss[size_t(d)] = -ss[size_t(d)];
  }
  const DimVector os = byte_strides(out.strides(), e);
  const auto plan = plan_loop<2>(t.sizes(), {static_cast<char*>(out.data_ptr()), src},
                                 {IntArrayRef(os), IntArrayRef(ss)});
  by_size(e, [&]<class E>() {
    run_loop(plan, [](std::array<char*, 2>& p, const std::array<int64_t, 2>& st, int64_t n) {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<E*>(p[0] + i * st[0]) = *reinterpret_cast<const E*>(p[1] + i * st[1]);
    });
  });
}

void triangle(const Tensor& out, const Tensor& s, int64_t k, bool lower) {
  const int64_t rows_per = s.size(-2), cols = s.size(-1);
  const int64_t rows = out.numel() / cols;
  by_size(s.element_size(), [&]<class E>() {
    const E* src = static_cast<const E*>(s.data_ptr());
    E* dst = static_cast<E*>(out.data_ptr());
    parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / cols), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const int64_t i = r % rows_per;
        // Kept columns: j - i <= k (lower) or j - i >= k (upper); zero bits elsewhere.
        const int64_t lo = lower ? 0 : std::clamp<int64_t>(i + k, 0, cols);
        const int64_t hi = lower ? std::clamp<int64_t>(i + k + 1, 0, cols) : cols;
        const E* in = src + r * cols;
        E* o = dst + r * cols;
        std::fill(o, o + lo, E{});
        std::copy(in + lo, in + hi, o + lo);
        std::fill(o + hi, o + cols, E{});
      }
    });
  });
}

void trace(const Tensor& out, const Tensor& t) {
  const int64_t n = std::min(t.size(0), t.size(1)), step = t.stride(0) + t.stride(1);
  dispatch<DtypeSet::Numeric>(t.dtype(), "trace", [&]<class T>() {
    // PyTorch's CPU accumulation types: double for float, float for the half types.
    using Acc = std::conditional_t<std::is_integral_v<T>, int64_t,
                                   std::conditional_t<is_half_v<T>, float, double>>;
    const T* v = t.data_ptr<T>();
    Acc sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += convert<Acc>(v[i * step]);
    if constexpr (std::is_integral_v<T>)
      *out.data_ptr<int64_t>() = sum;
    else
      *out.data_ptr<T>() = convert<T>(sum);
  });
}

Tensor repeat_interleave(const Tensor& r) {
  const int64_t* rv = r.data_ptr<int64_t>();
  int64_t total = 0;
  for (int64_t i = 0; i < r.numel(); ++i) {
    EMBER_CHECK(rv[i] >= 0, "repeat_interleave", "repeats can not be negative");
    total += rv[i];
  }
  Tensor out = backend::new_buffer({total}, kInt64);
  int64_t* o = out.data_ptr<int64_t>();
  for (int64_t i = 0; i < r.numel(); ++i) o = std::fill_n(o, rv[i], i);
  return out;
}

Tensor one_hot(const Tensor& s, int64_t num_classes) {
  const int64_t n = s.numel();
  const int64_t* v = s.data_ptr<int64_t>();
  const auto [lo, hi] = std::minmax_element(v, v + n);
  EMBER_CHECK(*lo >= 0, "one_hot", "Class values must be non-negative.");
  if (num_classes == -1) num_classes = *hi + 1;
  EMBER_CHECK(*hi < num_classes, "one_hot", "Class values must be smaller than num_classes.");
  DimVector shape(s.sizes());
  shape.push_back(num_classes);
  Tensor out = backend::new_zeros(shape, kInt64);
  int64_t* o = out.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) o[i * num_classes + v[i]] = 1;
  return out;
}

void searchsorted(const Tensor& out, const Tensor& bd, const Tensor& vals, const Tensor& sorter,
                  bool right) {
  const int64_t m = bd.size(-1), per_row = bd.dim() == 1 ? 0 : vals.size(-1);
  int64_t* ov = out.data_ptr<int64_t>();
  const int64_t* sv = sorter.defined() ? sorter.data_ptr<int64_t>() : nullptr;
  dispatch<DtypeSet::Numeric>(bd.dtype(), "searchsorted", [&]<class T>() {
    using C = compute_t<T>;
    const T* b = bd.data_ptr<T>();
    const T* v = vals.data_ptr<T>();
    parallel_for(0, vals.numel(), 2048, [&](int64_t lo_i, int64_t hi_i) {
      for (int64_t i = lo_i; i < hi_i; ++i) {
        const int64_t row = per_row ? (i / per_row) * m : 0;
        const C x = C(v[i]);
        // First position whose boundary is >= x (left) or > x (right); written with negated
        // comparisons so NaN boundaries and values land where PyTorch puts them.
        int64_t lo = 0, hi = m;
        while (lo < hi) {
          const int64_t mid = lo + (hi - lo) / 2;
          const C y = C(b[row + (sv ? sv[row + mid] : mid)]);
          if (right ? !(y > x) : !(y >= x))
            lo = mid + 1;
          else
            hi = mid;
        }
        ov[i] = lo;
      }
    });
  });
}

// Sorts (value, position) pairs stably (NaN last) and returns where each group of equal values
// starts (every NaN is its own group, as NaN != NaN). The values are order_key_t, so the sorts
// are compiled for three key types rather than every dtype.
template <class K>
std::vector<int64_t> sorted_groups(std::vector<std::pair<K, int64_t>>& items) {
  std::stable_sort(items.begin(), items.end(),
                   [](const auto& a, const auto& b) { return lt_nan_last(a.first, b.first); });
  std::vector<int64_t> starts;
  for (size_t k = 0; k < items.size(); ++k)
    if (k == 0 || !(items[k].first == items[k - 1].first)) starts.push_back(int64_t(k));
  return starts;
}

backend::UniqueElements unique(const Tensor& s, bool return_inverse, bool return_counts) {
  const int64_t n = s.numel();
  backend::UniqueElements r;
  dispatch(s.dtype(), "unique", [&]<class T>() {
    using K = order_key_t<T>;
    const T* v = s.data_ptr<T>();
    std::vector<std::pair<K, int64_t>> items(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) items[size_t(i)] = {K(v[i]), i};
    const std::vector<int64_t> starts = sorted_groups(items);
    const int64_t groups = int64_t(starts.size());
    r.values = backend::new_buffer({groups}, s.dtype(), s.device());
    T* out = r.values.data_ptr<T>();
    for (int64_t g = 0; g < groups; ++g) out[g] = v[items[size_t(starts[size_t(g)])].second];
    if (return_inverse) {
      r.inverse = backend::new_buffer(s.sizes(), kInt64);
      int64_t* inv = r.inverse.data_ptr<int64_t>();
      for (int64_t g = 0, k = 0; k < n; ++k) {
        if (g + 1 < groups && k == starts[size_t(g) + 1]) ++g;
        inv[items[size_t(k)].second] = g;
      }
    }
    if (return_counts) {
      r.counts = backend::new_buffer({groups}, kInt64);
      int64_t* c = r.counts.data_ptr<int64_t>();
      for (int64_t g = 0; g < groups; ++g)
        c[g] = (g + 1 < groups ? starts[size_t(g) + 1] : n) - starts[size_t(g)];
    }
  });
  return r;
}

// The rows of an (n, row) matrix of keys, sorted lexicographically (stably: first rows first),
// grouped into distinct rows: the first row of each group, its size and each row's group.
template <class K>
void group_rows(const K* v, int64_t n, int64_t row, std::vector<int64_t>& firsts,
                std::vector<int64_t>& counts, std::vector<int64_t>& inverse) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  auto cmp = [&](int64_t a, int64_t b) {  // -1, 0, 1 like a lexicographic compare
    for (int64_t i = 0; i < row; ++i) {
      const K p = v[a * row + i], q = v[b * row + i];
      if (p < q) return -1;
      if (q < p) return 1;
    }
    return 0;
  };
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return cmp(a, b) < 0; });
  for (int64_t k = 0; k < n; ++k) {
    if (k == 0 || cmp(order[size_t(k) - 1], order[size_t(k)]) != 0) {
      firsts.push_back(order[size_t(k)]);
      counts.push_back(0);
    }
    ++counts.back();
    inverse[size_t(order[size_t(k)])] = int64_t(firsts.size()) - 1;
  }
}

// PyTorch's _unique_dim: rows compared lexicographically, a stable sort keeps first rows first.
backend::UniqueRows unique_rows(const Tensor& x) {
  const int64_t n = x.size(0), row = n == 0 ? 0 : x.numel() / n;
  std::vector<int64_t> firsts, counts, inverse(static_cast<size_t>(n));
  dispatch(x.dtype(), "unique", [&]<class T>() {
    using K = order_key_t<T>;
    const T* v = x.data_ptr<T>();
    if constexpr (std::is_same_v<K, T>) {
      group_rows(v, n, row, firsts, counts, inverse);
    } else {
      // The rows as keys (a copy: unique over a dim is not a hot path).
      std::vector<K> keys(static_cast<size_t>(n * row));
      for (size_t i = 0; i < keys.size(); ++i) keys[i] = K(v[i]);
      group_rows(keys.data(), n, row, firsts, counts, inverse);
    }
  });
  return {.first = from_vector(firsts, std::vector<int64_t>{int64_t(firsts.size())}),
          .inverse = from_vector(inverse),
          .counts = from_vector(counts)};
}

}  // namespace

void add_rearrange_kernels(backend::Backend& b) {
  b.rearrange = {.flip = &flip,
                 .triangle = &triangle,
                 .trace = &trace,
                 .repeat_interleave = &repeat_interleave,
                 .one_hot = &one_hot,
                 .searchsorted = &searchsorted,
                 .unique = &unique,
                 .unique_rows = &unique_rows};
}

}  // namespace ember::cpu
