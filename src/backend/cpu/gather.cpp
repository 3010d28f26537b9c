// CPU kernels of gather/scatter(_add/_reduce) along a dim (src/ops/gather.cpp), and the gather
// family's table entries. Pure data moves dispatch on the element size only.
#include "backend/cpu/gather.h"

#include <algorithm>
#include <array>
#include <limits>

#include "backend/buffers.h"
#include "backend/cpu/kernels.h"
#include "backend/cpu/loop.h"
#include "backend/cpu/raw_elements.h"
#include "core/dispatch.h"
#include "core/parallel.h"

namespace ember::cpu {
namespace {

using Reduce = backend::ScatterReduce;

// Note [Scatter lines]
// gather/scatter walk the index shape line by line along `dim`: every position with dim fixed
// at 0 starts a line, and a line's index entries all address one line of self. Lines run in
// parallel, entries within a line one after another, so two writes to the same self element
// always come from the same line and never race (scatter_add with repeated indices is exact).
// A batch of neighbouring lines is visited entry-major (all lines' entry 0, then entry 1, ...)
// unless dim is the last dim, so that memory is read in order, as PyTorch's kernel does.

// Calls f(ptrs, strides, n): n lines starting at ptrs[k] in operand k, line to line strides[k].
template <int N, class F>
void for_each_lines(IntArrayRef shape, int64_t dim, const std::array<const Tensor*, N>& ops,
                    const F& f) {
  DimVector lines(shape);
  lines[size_t(dim)] = 1;
  const auto plan = plan_tensors<N>(lines, ops);
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, shape[size_t(dim)]));
  run_loop(
      plan,
      [&](std::array<char*, N>& ptrs, const std::array<int64_t, N>& st, int64_t n) {
        f(ptrs, st, n);
      },
      grain);
}

// Visits entry j of line l for n lines of len entries (Note [Scatter lines]).
template <class F>
inline void visit_lines(bool entries_inner, int64_t n, int64_t len, const F& f) {
  if (entries_inner) {
    for (int64_t l = 0; l < n; ++l)
      for (int64_t j = 0; j < len; ++j) f(l, j);
  } else {
    for (int64_t j = 0; j < len; ++j)
      for (int64_t l = 0; l < n; ++l) f(l, j);
  }
}

// op(self[..., index[j], ...], other[..., j, ...]) (references) along dim for every index entry:
// scatter writes the first from the second, gather (other = the result) the second from the first.
// self, index and other share the index's rank; other may be a broadcast scalar.
template <class T, class Op>
void line_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& other,
                 const char* name, const Op& op) {
  const int64_t size = self.size(dim), len = index.size(dim);
  const int64_t ss = self.stride(dim), is = index.stride(dim), xs = other.stride(dim);
  const bool entries_inner = dim == index.dim() - 1;
  BadIndex bad;
  // Sizes and strides by value: the out-of-line error path would otherwise force reloads.
  auto lines = [&bad, &op, size, len, ss, is, xs, entries_inner](
                   const std::array<char*, 3>& p, const std::array<int64_t, 3>& st, int64_t n) {
    visit_lines(entries_inner, n, len, [&](int64_t l, int64_t j) {
      const int64_t i = reinterpret_cast<const int64_t*>(p[1] + l * st[1])[j * is];
      if (i < 0 || i >= size) [[unlikely]] {
        bad.record(i);
        return;
      }
      op(reinterpret_cast<T*>(p[0] + l * st[0])[i * ss],
         reinterpret_cast<T*>(p[2] + l * st[2])[j * xs]);
    });
  };
  for_each_lines<3>(index.sizes(), dim, {&self, &index, &other}, lines);
  bad.raise(name, dim, size);
}

// The value that leaves any other unchanged under the reduction.
template <class T>
T reduce_identity(Reduce r) {
  using C = compute_t<T>;
  switch (r) {
    case Reduce::Prod:
      return T(C(1));
    case Reduce::Amax:
      if constexpr (std::numeric_limits<C>::has_infinity)
        return T(-std::numeric_limits<C>::infinity());
      else
        return std::numeric_limits<T>::lowest();
    case Reduce::Amin:
      if constexpr (std::numeric_limits<C>::has_infinity)
        return T(std::numeric_limits<C>::infinity());
      else
        return std::numeric_limits<T>::max();
    default:
      return T(C(0));
  }
}

// self[..., index[j], ...] = src[..., j, ...] along dim: moves bytes, so one kernel per element
// size serves scatter and scatter_reduce's identity fill.
void scatter_lines(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                   const char* name) {
  by_size(self.element_size(), [&]<class E>() {
    line_kernel<E>(self, dim, index, src, name, [](E& a, E b) { a = b; });
  });
}

}  // namespace

void gather(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  by_size(self.element_size(), [&]<class E>() {
    line_kernel<E>(self, dim, index, out, "gather", [](E& from, E& to) { to = from; });
  });
}

void scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  scatter_lines(self, dim, index, src, "scatter");
}

void scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  dispatch(self.dtype(), "scatter_add", [&]<class T>() {
    line_kernel<T>(self, dim, index, src, "scatter_add", [](T& a, T b) {
      if constexpr (std::is_same_v<T, bool>)
        a = a || b;
      else
        a = T(compute_t<T>(a) + compute_t<T>(b));
    });
  });
}

void scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                    Reduce r, bool include_self) {
  Tensor s = self;  // a handle: the division below writes self's elements
  const Tensor &i = index, &x = src, &t = self;
  dispatch<DtypeSet::Numeric>(t.dtype(), "scatter_reduce", [&]<class T>() {
    using C = compute_t<T>;
    if (!include_self) {  // the written positions start from the identity instead of self
      const Tensor fill = backend::new_full({}, reduce_identity<T>(r), t.dtype()).expand(i.sizes());
      scatter_lines(s, dim, i, fill, "scatter_reduce");
    }
    auto run = [&](auto op) { line_kernel<T>(s, dim, i, x, "scatter_reduce", op); };
    // One closure for the sums and mean's count, so their kernel is compiled once per dtype.
    const auto add = [](T& a, T b) { a = T(C(a) + C(b)); };
    switch (r) {
      case Reduce::Sum:
      case Reduce::Mean:
        run(add);
        break;
      case Reduce::Prod:
        run([](T& a, T b) { a = T(C(a) * C(b)); });
        break;
      // NaN wins, as in PyTorch's ReduceMaximum/ReduceMinimum.
      case Reduce::Amax:
        run([](T& a, T b) { a = is_nan(b) ? b : (C(a) < C(b) ? b : a); });
        break;
      case Reduce::Amin:
        run([](T& a, T b) { a = is_nan(b) ? b : (C(b) < C(a) ? b : a); });
        break;
    }
    if (r != Reduce::Mean) return;
    // mean = sum / count, with count in self's dtype (self counts once when included).
    Tensor count = include_self ? backend::new_full(s.sizes(), 1, t.dtype())
                                : backend::new_zeros(s.sizes(), t.dtype());
    const Tensor one = backend::new_full({}, 1, t.dtype()).expand(i.sizes());
    line_kernel<T>(count, dim, i, one, "scatter_reduce", add);
    count.masked_fill_(count.eq(0), 1);
    if (is_floating_point(t.dtype()))
      s.div_(count);
    else
      s.div_(count, "floor");
  });
}

void add_gather_kernels(backend::Backend& b) {
  b.gather = {.gather = &gather,
              .scatter = &scatter,
              .scatter_add = &scatter_add,
              .scatter_reduce = &scatter_reduce,
              .check_index = &check_index,
              .index_select = &index_select,
              .index_add = &index_add,
              .index_copy = &index_copy,
              .index_fill = &index_fill,
              .take = &take,
              .masked_select = &masked_select,
              .masked_scatter = &masked_scatter,
              .nonzero = &nonzero};
}

}  // namespace ember::cpu
