// CPU kernels of advanced indexing (src/ops/index.cpp): an offset table over the indexed dims,
// then one walk over the result shape (Note [Index walk]).
#include <atomic>
#include <vector>

#include "backend/cpu/kernels.h"
#include "backend/cpu/raw_elements.h"
#include "core/dispatch.h"
#include "core/parallel.h"

namespace ember::cpu {
namespace {

using backend::AdvancedIndex;

// The indexed block of src: m dims from first, and for each of the prod(S) index positions the
// element offset sum_k index_k[j] * stride_k.
struct Plan {
  const Tensor& src;
  int64_t first = 0, m = 0;
  std::vector<int64_t> offsets;
};

// Offsets with negative indices wrapped, every index bounds checked.
Plan make_plan(const AdvancedIndex& at) {
  Plan p{at.src, at.first, int64_t(at.indices.size()), {}};
  const int64_t count = at.indices.empty() ? 0 : at.indices[0].numel();
  p.offsets.assign(size_t(count), 0);
  std::atomic<bool> bad{false};
  auto fill = [&](int64_t b, int64_t e, bool report) {
    for (int64_t k = 0; k < p.m; ++k) {
      const int64_t* v = at.indices[size_t(k)].data_ptr<int64_t>();
      const int64_t size = p.src.size(p.first + k), stride = p.src.stride(p.first + k);
      for (int64_t j = b; j < e; ++j) {
        int64_t i = v[j];
        if (i < -size || i >= size) [[unlikely]] {
          if (report)
            fail("index", "index ", i, " is out of bounds for dimension ", k, " with size ", size);
          bad = true;
          continue;
        }
        if (i < 0) i += size;
        p.offsets[size_t(j)] += i * stride;
      }
    }
  };
  parallel_for(0, count, kGrainSize, [&](int64_t b, int64_t e) { fill(b, e, false); });
  if (bad) fill(0, count, true);  // again, serially, to throw for the first bad index
  return p;
}

// Note [Index walk]
// index() and index_put_ visit the elements of the result shape as (B..., J, A...): B and A are
// src's dims before and after the indexed block and J runs over the flattened index shape. The
// "plain" operand (the result, or the value) has ordinary strides for all of them; the indexed
// operand (src) has strides for B and A and the offset table for J.
struct Walk {
  DimVector shape, plain, indexed;  // element strides; indexed[tdim] is unused
  int64_t tdim = -1;                // the J dim, or -1 for none
  const int64_t* table = nullptr;
};

Walk make_walk(const Plan& p, IntArrayRef plain_strides_bja) {
  Walk w;
  const int64_t n = p.src.dim() - p.m + 1;
  for (int64_t d = 0, s = 0; d < n; ++d) {
    const bool j = d == p.first;
    w.shape.push_back(j ? int64_t(p.offsets.size()) : p.src.size(s));
    w.plain.push_back(plain_strides_bja[size_t(d)]);
    w.indexed.push_back(j ? 0 : p.src.stride(s));
    s += j ? p.m : 1;
  }
  w.tdim = p.first;
  w.table = p.offsets.data();
  // Drop size-1 dims and merge neighbours contiguous in both operands (never across J).
  Walk c;
  for (size_t d = 0; d < w.shape.size(); ++d) {
    const bool j = int64_t(d) == w.tdim;
    if (!j && w.shape[d] == 1) continue;
    if (!j && !c.shape.empty() && int64_t(c.shape.size()) - 1 != c.tdim &&
        c.plain.back() == w.plain[d] * w.shape[d] &&
        c.indexed.back() == w.indexed[d] * w.shape[d]) {
      c.shape.back() *= w.shape[d];
      c.plain.back() = w.plain[d];
      c.indexed.back() = w.indexed[d];
      continue;
    }
    if (j) c.tdim = int64_t(c.shape.size());
    c.shape.push_back(w.shape[d]);
    c.plain.push_back(w.plain[d]);
    c.indexed.push_back(w.indexed[d]);
  }
  c.table = w.table;
  return c;
}

// Calls f(plain_offset, indexed_offset) for the elements [begin, end) of w.shape in row-major
// order, starting from the given base offsets.
template <class F>
void walk(const Walk& w, int64_t begin, int64_t end, int64_t base_p, int64_t base_q, const F& f) {
  const int64_t nd = int64_t(w.shape.size());
  if (begin >= end) return;
  if (nd == 0) {
    f(base_p, base_q);
    return;
  }
  DimVector coord(static_cast<size_t>(nd));
  for (int64_t d = nd - 1, rest = begin; d >= 0; --d) {
    coord[size_t(d)] = rest % w.shape[size_t(d)];
    rest /= w.shape[size_t(d)];
  }
  const int64_t last = nd - 1;
  const int64_t sp = w.plain[size_t(last)], sq = w.indexed[size_t(last)];
  for (int64_t i = begin; i < end;) {
    int64_t p = base_p, q = base_q;
    for (int64_t d = 0; d < last; ++d) {
      const int64_t c = coord[size_t(d)];
      p += c * w.plain[size_t(d)];
      q += d == w.tdim ? w.table[c] : c * w.indexed[size_t(d)];
    }
    const int64_t c0 = coord[size_t(last)];
    const int64_t n = std::min(w.shape[size_t(last)] - c0, end - i);
    if (last == w.tdim) {
      for (int64_t k = c0; k < c0 + n; ++k) f(p + k * sp, q + w.table[k]);
    } else {
      for (int64_t k = c0; k < c0 + n; ++k) f(p + k * sp, q + k * sq);
    }
    i += n;
    coord[size_t(last)] += n;
    for (int64_t d = last; d > 0 && coord[size_t(d)] == w.shape[size_t(d)]; --d) {
      coord[size_t(d)] = 0;
      ++coord[size_t(d - 1)];
    }
  }
}

// The result shape with the index shape S flattened to one dim J: (B..., J, A...).
DimVector walk_shape(const Plan& p) {
  DimVector bja;
  for (int64_t d = 0; d < p.first; ++d) bja.push_back(p.src.size(d));
  bja.push_back(int64_t(p.offsets.size()));
  for (int64_t d = p.first + p.m; d < p.src.dim(); ++d) bja.push_back(p.src.size(d));
  return bja;
}

}  // namespace

void index(const Tensor& out, const AdvancedIndex& at) {
  const Plan p = make_plan(at);
  if (out.numel() == 0) return;
  const Walk w = make_walk(p, contiguous_strides(walk_shape(p)));
  by_size(p.src.element_size(), [&]<class E>() {
    E* o = static_cast<E*>(out.data_ptr());
    const E* s = static_cast<const E*>(p.src.data_ptr());
    parallel_for(0, out.numel(), kGrainSize, [&](int64_t b, int64_t e) {
      walk(w, b, e, 0, 0, [&](int64_t i, int64_t j) { o[i] = s[j]; });
    });
  });
}

void index_put(const AdvancedIndex& at, const Tensor& value, bool accumulate) {
  const Plan p = make_plan(at);
  const int64_t total = value.numel();
  if (total == 0) return;
  // The walk needs S as one dim; reshape views when it can (broadcast dims stay stride 0).
  const Tensor v = value.reshape(walk_shape(p));
  Walk w = make_walk(p, v.strides());
  if (!accumulate) {
    // Repeated indices race here; which value lands is unspecified, as in PyTorch.
    by_size(p.src.element_size(), [&]<class E>() {
      E* s = static_cast<E*>(p.src.data_ptr());
      const E* x = static_cast<const E*>(v.data_ptr());
      parallel_for(0, total, kGrainSize, [&](int64_t b, int64_t e) {
        walk(w, b, e, 0, 0, [&](int64_t i, int64_t j) { s[j] = x[i]; });
      });
    });
    return;
  }
  dispatch(p.src.dtype(), "index_put_", [&]<class T>() {
    T* s = static_cast<T*>(p.src.data_ptr());
    const T* x = static_cast<const T*>(v.data_ptr());
    auto add = [&](int64_t i, int64_t j) {
      if constexpr (std::is_same_v<T, bool>)
        s[j] = s[j] || x[i];
      else
        s[j] = T(compute_t<T>(s[j]) + compute_t<T>(x[i]));
    };
    const int64_t count = int64_t(p.offsets.size()), block = total / count;
    if (block < kGrainSize) {
      walk(w, 0, total, 0, 0, add);
      return;
    }
    // Repeated indices must add up: positions of J run one after another, and only the
    // elements of one position (distinct addresses) run in parallel.
    Walk inner = w;
    inner.shape.erase(size_t(w.tdim));
    inner.plain.erase(size_t(w.tdim));
    inner.indexed.erase(size_t(w.tdim));
    inner.tdim = -1;
    for (int64_t j = 0; j < count; ++j) {
      parallel_for(0, block, kGrainSize, [&](int64_t b, int64_t e) {
        walk(inner, b, e, j * w.plain[size_t(w.tdim)], p.offsets[size_t(j)], add);
      });
    }
  });
}

void add_index_kernels(backend::Backend& b) {
  b.index = {.index = &index, .index_put = &index_put};
}

}  // namespace ember::cpu
