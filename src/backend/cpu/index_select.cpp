// CPU kernels of index_select/index_add_/index_copy_/index_fill_ along a dim with a 1-D index
// (src/ops/index_select.cpp). Self is contiguous and seen as (outer, size, inner) blocks.
#include <algorithm>

#include "backend/cpu/gather.h"
#include "backend/cpu/raw_elements.h"
#include "core/dispatch.h"
#include "core/parallel.h"

namespace ember::cpu {
namespace {

// t (contiguous) seen as (outer, size, inner) around dim.
struct Around {
  int64_t outer = 1, size = 1, inner = 1;
};

Around around(IntArrayRef shape, int64_t dim) {
  Around a;
  for (int64_t d = 0; d < int64_t(shape.size()); ++d) {
    if (d < dim)
      a.outer *= shape[size_t(d)];
    else if (d == dim)
      a.size = shape[size_t(d)];
    else
      a.inner *= shape[size_t(d)];
  }
  return a;
}

// Calls f(o, c0, c1) on disjoint chunks of the (outer, inner) positions: each call owns columns
// [c0, c1) of row o for every index entry, so writes through repeated indices never race.
template <class F>
void for_each_column_chunk(const Around& a, int64_t entries, const F& f) {
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, entries));
  parallel_for(0, a.outer * a.inner, grain, [&](int64_t b, int64_t e) {
    for (int64_t pos = b; pos < e;) {
      const int64_t o = pos / a.inner, c0 = pos % a.inner;
      const int64_t c1 = std::min(a.inner, c0 + (e - pos));
      f(o, c0, c1);
      pos += c1 - c0;
    }
  });
}

}  // namespace

void check_index(const char* op, const Tensor& index, int64_t dim, int64_t size, bool wrap) {
  int64_t* v = index.data_ptr<int64_t>();
  for (int64_t j = 0; j < index.numel(); ++j) {
    const int64_t i = v[j];
    EMBER_CHECK(wrap ? (i >= -size && i < size) : (i >= 0 && i < size), op, "index ", i,
                " is out of bounds for dimension ", dim, " with size ", size);
    if (i < 0) v[j] = i + size;
  }
}

void index_select(const Tensor& out, const Tensor& s, int64_t dim, const Tensor& index) {
  const Around a = around(s.sizes(), dim);
  const int64_t n = index.numel();
  const int64_t* iv = index.data_ptr<int64_t>();
  by_size(s.element_size(), [&]<class E>() {
    const E* src = static_cast<const E*>(s.data_ptr());
    E* dst = static_cast<E*>(out.data_ptr());
    // Rows (o, j) are independent: copy each one's inner run.
    parallel_for(0, a.outer * n, std::max<int64_t>(1, kGrainSize / a.inner),
                 [&](int64_t b, int64_t e) {
                   for (int64_t r = b; r < e; ++r) {
                     const int64_t o = r / n, j = r % n;
                     std::copy_n(src + (o * a.size + iv[j]) * a.inner, a.inner, dst + r * a.inner);
                   }
                 });
  });
}

void index_add(const Tensor& w, int64_t dim, const Tensor& index, const Tensor& x, Scalar alpha) {
  const int64_t* iv = index.data_ptr<int64_t>();
  const int64_t n = index.numel();
  const Around a = around(w.sizes(), dim);
  dispatch(w.dtype(), "index_add_", [&]<class T>() {
    using C = compute_t<T>;
    T* dst = static_cast<T*>(w.data_ptr());
    const T* src = static_cast<const T*>(x.data_ptr());
    const C s = alpha.to<C>();
    for_each_column_chunk(a, n, [&](int64_t o, int64_t c0, int64_t c1) {
      for (int64_t j = 0; j < n; ++j) {
        T* d = dst + (o * a.size + iv[j]) * a.inner;
        const T* v = src + (o * n + j) * a.inner;
        for (int64_t c = c0; c < c1; ++c) {
          if constexpr (std::is_same_v<T, bool>)
            d[c] = d[c] || (s && v[c]);
          else
            d[c] = T(C(d[c]) + s * C(v[c]));
        }
      }
    });
  });
}

void index_copy(const Tensor& w, int64_t dim, const Tensor& index, const Tensor& x) {
  const int64_t* iv = index.data_ptr<int64_t>();
  const int64_t n = index.numel();
  const Around a = around(w.sizes(), dim);
  by_size(w.element_size(), [&]<class E>() {
    E* dst = static_cast<E*>(w.data_ptr());
    const E* src = static_cast<const E*>(x.data_ptr());
    for_each_column_chunk(a, n, [&](int64_t o, int64_t c0, int64_t c1) {
      for (int64_t j = 0; j < n; ++j)
        std::copy(src + (o * n + j) * a.inner + c0, src + (o * n + j) * a.inner + c1,
                  dst + (o * a.size + iv[j]) * a.inner + c0);
    });
  });
}

void index_fill(const Tensor& w, int64_t dim, const Tensor& index, Scalar value) {
  const int64_t* iv = index.data_ptr<int64_t>();
  const int64_t n = index.numel();
  const Around a = around(w.sizes(), dim);
  dispatch(w.dtype(), "index_fill_", [&]<class T>() {
    T* dst = static_cast<T*>(w.data_ptr());
    const T fill = value.to<T>();
    for_each_column_chunk(a, n, [&](int64_t o, int64_t c0, int64_t c1) {
      for (int64_t j = 0; j < n; ++j)
        std::fill(dst + (o * a.size + iv[j]) * a.inner + c0,
                  dst + (o * a.size + iv[j]) * a.inner + c1, fill);
    });
  });
}

}  // namespace ember::cpu
