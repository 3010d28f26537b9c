// Gathering and scattering: gather/scatter(_add/_reduce) along a dim with an index of the same
// rank, index_select/index_add_/index_copy_/index_fill_ with a 1-D index, take, take_along_dim,
// masked_select/masked_scatter_ and nonzero. Pure data moves dispatch on the element size only.
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <limits>

#include "autograd/function.h"
#include "backend/cpu/loop.h"
#include "backend/cpu/parallel.h"
#include "core/convert.h"
#include "core/dispatch.h"
#include "ember/creation.h"
#include "ember/index_ops.h"
#include "ember/math.h"
#include "ember/shape.h"
#include "ops/copy.h"
#include "ops/raw_elements.h"

namespace ember {

using autograd::Grads;
using autograd::Recorder;
using autograd::Saved;
using autograd::TensorList;

namespace {

// The first out-of-range index met inside a parallel loop, thrown once the loop is over
// (an exception must not leave an OpenMP region).
struct BadIndex {
  std::atomic<bool> seen{false};
  int64_t value = 0;
  void record(int64_t v) {
    bool expected = false;
    if (seen.compare_exchange_strong(expected, true)) value = v;
  }
  void raise(const char* op, int64_t dim, int64_t size) const {
    if (seen)
      fail(op, "index ", value, " is out of bounds for dimension ", dim, " with size ", size);
  }
};

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
  std::array<char*, N> base;
  std::array<DimVector, N> strides;
  std::array<IntArrayRef, N> refs;
  for (int k = 0; k < N; ++k) {
    base[k] = static_cast<char*>(ops[k]->data_ptr());
    strides[k] = cpu::byte_strides(ops[k]->strides(), ops[k]->element_size());
    refs[k] = strides[k];
  }
  const auto plan = cpu::plan_loop<N>(lines, base, refs);
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, shape[size_t(dim)]));
  cpu::run_loop(
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

// Tensors of rank 0 take part as rank 1 (PyTorch's ensure_nonempty_dim).
Tensor at_least_1d(const Tensor& t) { return t.dim() == 0 ? t.reshape({1}) : t; }

std::string shape_str(IntArrayRef s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

// PyTorch's scatter_gather checks: int64 index, equal ranks, index no larger than self (apart
// from dim) and than src.
void check_scatter_gather(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                          const Tensor* src) {
  EMBER_CHECK(index.dtype() == kInt64, op, "Expected dtype int64 for index, got ", index.dtype());
  EMBER_CHECK(self.is_cpu() && index.is_cpu(), op, "implemented for CPU tensors only");
  const int64_t nd = std::max<int64_t>(1, self.dim());
  const bool is_gather = src == nullptr;
  EMBER_CHECK(std::max<int64_t>(1, index.dim()) == nd, op,
              "Index tensor must have the same number of dimensions as ",
              is_gather ? "input" : "self", " tensor");
  if (src) {
    EMBER_CHECK(src->dtype() == self.dtype(), op,
                "Expected self.dtype to be equal to src.dtype (got ", self.dtype(), " and ",
                src->dtype(), ")");
    EMBER_CHECK(std::max<int64_t>(1, src->dim()) == nd, op,
                "Index tensor must have the same number of dimensions as src tensor");
  }
  if (index.numel() == 0) return;
  const Tensor s = at_least_1d(self), i = at_least_1d(index);
  for (int64_t d = 0; d < nd; ++d) {
    bool ok = d == dim || i.size(d) <= s.size(d);
    if (src) ok &= i.size(d) <= at_least_1d(*src).size(d);
    if (ok) continue;
    if (is_gather)
      fail(op, "Size does not match at dimension ", d, " expected index ", i.sizes(),
           " to be smaller than self ", s.sizes(), " apart from dimension ", dim);
    fail(op, "Expected index ", i.sizes(), " to be smaller than self ", s.sizes(),
         " apart from dimension ", dim, " and to be smaller size than src ",
         shape_str(at_least_1d(*src).sizes()));
  }
}

enum class Reduce { Sum, Prod, Mean, Amax, Amin };

Reduce parse_reduce(const std::string& r) {
  if (r == "sum") return Reduce::Sum;
  if (r == "prod") return Reduce::Prod;
  if (r == "mean") return Reduce::Mean;
  if (r == "amax") return Reduce::Amax;
  if (r == "amin") return Reduce::Amin;
  fail("scatter_reduce", "reduce argument must be either sum, prod, mean, amax or amin, got ", r);
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

// ── index along a dim: (outer, size, inner) blocks ───────────────────────────────────────────

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

// A 1-D (or 0-d) int64/int32 index as contiguous int64, every entry checked against size;
// negative entries wrap when `wrap`.
Tensor vector_index(const char* op, const Tensor& index, int64_t dim, int64_t size, bool wrap,
                    bool allow_int32 = true) {
  EMBER_CHECK(index.dim() <= 1, op, "Index is supposed to be a vector, got ", index.dim(), "-D");
  EMBER_CHECK(index.dtype() == kInt64 || (allow_int32 && index.dtype() == kInt32), op,
              "Expected dtype ", allow_int32 ? "int32 or int64" : "int64", " for index, got ",
              index.dtype());
  Tensor idx = index.to(kInt64).contiguous().reshape({-1});
  if (wrap && idx.is_same(index)) idx = idx.clone();
  int64_t* v = idx.data_ptr<int64_t>();
  for (int64_t j = 0; j < idx.numel(); ++j) {
    const int64_t i = v[j];
    EMBER_CHECK(wrap ? (i >= -size && i < size) : (i >= 0 && i < size), op, "index ", i,
                " is out of bounds for dimension ", dim, " with size ", size);
    if (i < 0) v[j] = i + size;
  }
  return idx;
}

// source must match self apart from dim, and have index.numel() entries along it.
void check_source(const char* op, const Tensor& self, int64_t dim, const Tensor& source,
                  int64_t n) {
  EMBER_CHECK(source.dtype() == self.dtype(), op, "self (", self.dtype(), ") and source (",
              source.dtype(), ") must have the same scalar type");
  const Tensor s = at_least_1d(self), x = at_least_1d(source);
  bool ok = s.dim() == x.dim();
  for (int64_t d = 0; ok && d < s.dim(); ++d) ok = d == dim || s.size(d) == x.size(d);
  EMBER_CHECK(ok, op,
              "source tensor shape must match self tensor shape, excluding the "
              "specified dimension. Got self.shape = ",
              self.sizes(), " source.shape = ", source.sizes());
  EMBER_CHECK(x.size(dim) == n, op, "Number of indices (", n,
              ") should be equal to source.size(dim) (", x.size(dim), ")");
}

// Runs body(work) on a contiguous tensor holding self's values, then writes it back to self
// when self itself was not contiguous.
template <class F>
Tensor& in_place(Tensor& self, const F& body) {
  Tensor work = self.is_contiguous() ? self : self.contiguous();
  body(work);
  if (work.is_same(self))
    self.storage()->bump_version();
  else
    self.copy_(work);
  return self;
}

// Splits [0, n) into chunks, counts with count(b, e), lets alloc(total) make the output, then
// calls write(b, e, first) with each chunk's first output slot: order-preserving compaction.
template <class Count, class Alloc, class Write>
void compact(int64_t n, const Count& count, const Alloc& alloc, const Write& write) {
  const int64_t chunks = std::clamp<int64_t>(n / kGrainSize, 1, get_num_threads());
  const int64_t per = (n + chunks - 1) / std::max<int64_t>(chunks, 1);
  std::vector<int64_t> start(size_t(chunks) + 1, 0);
  parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c)
      start[size_t(c) + 1] = count(c * per, std::min(n, (c + 1) * per));
  });
  for (int64_t c = 0; c < chunks; ++c) start[size_t(c) + 1] += start[size_t(c)];
  alloc(start.back());
  parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) write(c * per, std::min(n, (c + 1) * per), start[size_t(c)]);
  });
}

}  // namespace

// ── gather / scatter ───────────────────────────────────────────────────────────────────────

Tensor gather(const Tensor& t, int64_t dim, const Tensor& index) {
  dim = wrap_dim(dim, t.dim(), "gather");
  check_scatter_gather("gather", t, dim, index, nullptr);
  Recorder rec("gather", {&t});
  Tensor out = empty(index.sizes(), t.options());
  if (rec)
    rec.record("GatherBackward0", {out}, {index},
               [dim, in = DimVector(t.sizes())](const Grads& g, const Saved& s) {
                 return TensorList{zeros(in, g[0].options()).scatter_add(dim, s[0], g[0])};
               });
  if (index.numel() == 0) return out;
  const Tensor o = at_least_1d(out), s = at_least_1d(t), i = at_least_1d(index);
  by_size(t.element_size(), [&]<class E>() {
    line_kernel<E>(s, dim, i, o, "gather", [](E& from, E& to) { to = from; });
  });
  return out;
}

namespace {

void scatter_kernel(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_scatter_gather("scatter", self, dim, index, &src);
  if (index.numel() == 0) return;
  const Tensor s = at_least_1d(self), i = at_least_1d(index), x = at_least_1d(src);
  by_size(self.element_size(),
          [&]<class E>() { line_kernel<E>(s, dim, i, x, "scatter", [](E& a, E b) { a = b; }); });
}

void scatter_add_kernel(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_scatter_gather("scatter_add", self, dim, index, &src);
  if (index.numel() == 0) return;
  const Tensor s = at_least_1d(self), i = at_least_1d(index), x = at_least_1d(src);
  dispatch(self.dtype(), "scatter_add", [&]<class T>() {
    line_kernel<T>(s, dim, i, x, "scatter_add", [](T& a, T b) {
      if constexpr (std::is_same_v<T, bool>)
        a = a || b;
      else
        a = T(compute_t<T>(a) + compute_t<T>(b));
    });
  });
}

// scatter: self's gradient is g with the written positions zeroed; src's is g at them.
void record_scatter(Recorder& rec, const Tensor& out, int64_t dim, const Tensor& index,
                    bool with_src) {
  rec.record(with_src ? "ScatterBackward0" : "ScatterBackward1", {out}, {index},
             [dim, with_src](const Grads& g, const Saved& s) {
               TensorList r{g[0].scatter(dim, s[0], 0)};
               if (with_src) r.push_back(g[0].gather(dim, s[0]));
               return r;
             });
}

void record_scatter_add(Recorder& rec, const Tensor& out, int64_t dim, const Tensor& index) {
  rec.record("ScatterAddBackward0", {out}, {index}, [dim](const Grads& g, const Saved& s) {
    return TensorList{g[0], g[0].gather(dim, s[0])};
  });
}

}  // namespace

Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) {
  dim = wrap_dim(dim, this->dim(), "scatter");
  Recorder rec(Recorder::InPlace{}, "scatter_", *this, {&src});
  scatter_kernel(*this, dim, index, src);
  impl_->storage()->bump_version();
  if (rec) record_scatter(rec, *this, dim, index, true);
  return *this;
}

Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, Scalar value) {
  dim = wrap_dim(dim, this->dim(), "scatter");
  Recorder rec(Recorder::InPlace{}, "scatter_", *this, {});
  scatter_kernel(*this, dim, index, full({}, value, {.dtype = dtype()}).expand(index.sizes()));
  impl_->storage()->bump_version();
  if (rec) record_scatter(rec, *this, dim, index, false);
  return *this;
}

Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) {
  dim = wrap_dim(dim, this->dim(), "scatter_add");
  Recorder rec(Recorder::InPlace{}, "scatter_add_", *this, {&src});
  scatter_add_kernel(*this, dim, index, src);
  impl_->storage()->bump_version();
  if (rec) record_scatter_add(rec, *this, dim, index);
  return *this;
}

Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src) const {
  dim = wrap_dim(dim, this->dim(), "scatter");
  Recorder rec("scatter", {this, &src});
  Tensor out = clone();
  scatter_kernel(out, dim, index, src);
  if (rec) record_scatter(rec, out, dim, index, true);
  return out;
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, Scalar value) const {
  dim = wrap_dim(dim, this->dim(), "scatter");
  Recorder rec("scatter", {this});
  Tensor out = clone();
  scatter_kernel(out, dim, index, full({}, value, {.dtype = dtype()}).expand(index.sizes()));
  if (rec) record_scatter(rec, out, dim, index, false);
  return out;
}
Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  dim = wrap_dim(dim, this->dim(), "scatter_add");
  Recorder rec("scatter_add", {this, &src});
  Tensor out = clone();
  scatter_add_kernel(out, dim, index, src);
  if (rec) record_scatter_add(rec, out, dim, index);
  return out;
}
Tensor Tensor::gather(int64_t dim, const Tensor& index) const {
  return ember::gather(*this, dim, index);
}

Tensor scatter(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) {
  return t.scatter(dim, index, src);
}
Tensor scatter(const Tensor& t, int64_t dim, const Tensor& index, Scalar value) {
  return t.scatter(dim, index, value);
}
Tensor scatter_add(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) {
  return t.scatter_add(dim, index, src);
}

namespace {

void scatter_reduce_kernel(Tensor& t, int64_t dim, const Tensor& index, const Tensor& src, Reduce r,
                           bool include_self) {
  Tensor s = at_least_1d(t);
  const Tensor i = at_least_1d(index), x = at_least_1d(src);
  dispatch<DtypeSet::Numeric>(t.dtype(), "scatter_reduce", [&]<class T>() {
    using C = compute_t<T>;
    if (!include_self) {  // the written positions start from the identity instead of self
      const Tensor fill = full({}, reduce_identity<T>(r), {.dtype = t.dtype()}).expand(i.sizes());
      line_kernel<T>(s, dim, i, fill, "scatter_reduce", [](T& a, T b) { a = b; });
    }
    auto run = [&](auto op) { line_kernel<T>(s, dim, i, x, "scatter_reduce", op); };
    switch (r) {
      case Reduce::Sum:
      case Reduce::Mean:
        run([](T& a, T b) { a = T(C(a) + C(b)); });
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
    Tensor count = include_self ? ones(s.sizes(), {.dtype = t.dtype()})
                                : zeros(s.sizes(), {.dtype = t.dtype()});
    const Tensor one = ones({}, {.dtype = t.dtype()}).expand(i.sizes());
    line_kernel<T>(count, dim, i, one, "scatter_reduce", [](T& a, T b) { a = T(C(a) + C(b)); });
    count.masked_fill_(count.eq(0), 1);
    if (is_floating_point(t.dtype()))
      s.div_(count);
    else
      s.div_(count, "floor");
  });
}

// PyTorch's scatter_reduce_backward (sum, mean, amax, amin, prod with zeros).
TensorList scatter_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim,
                                   const Tensor& index, const Tensor& src, Reduce r,
                                   bool include_self, const Tensor& result) {
  Tensor grad_self, grad_src;
  switch (r) {
    case Reduce::Sum:
      grad_self = grad;
      grad_src = grad.gather(dim, index);
      break;
    case Reduce::Mean: {
      Tensor n =
          include_self ? ones(self.sizes(), grad.options()) : zeros(self.sizes(), grad.options());
      n = n.scatter_add(dim, index, ones(src.sizes(), grad.options()));
      n = n.masked_fill(n.eq(0), 1);
      grad_self = grad / n;
      grad_src = grad.gather(dim, index) / n.gather(dim, index);
      break;
    }
    case Reduce::Amax:
    case Reduce::Amin: {
      // The gradient is shared evenly between the elements equal to the result.
      const Tensor value = result.gather(dim, index);
      const Tensor self_is = self.eq(result).to(grad.dtype());
      const Tensor src_is = src.eq(value).to(grad.dtype());
      const Tensor count =
          (include_self ? self_is : zeros_like(self_is)).scatter_add(dim, index, src_is);
      const Tensor shared = grad / count.masked_fill(count.eq(0), 1);
      grad_self = self_is * shared;
      grad_src = src_is * shared.gather(dim, index);
      break;
    }
    case Reduce::Prod: {
      // d result / d x is the product of the others. PyTorch's form: result / x where x is not
      // zero; for a zero in self, the product with self's zeros read as 1; for the only zero
      // scattered into its slot, the product with that zero read as 1; two or more zeros in a
      // slot make every gradient there zero (result is zero, and so is every other product).
      const Tensor self_ones = self.masked_fill(self.eq(0), 1);
      grad_self = grad * scatter_reduce(self_ones, dim, index, src, "prod", include_self) /
                  self_ones;
      const Tensor src_zero = src.eq(0);
      const Tensor zeros_in_slot =
          zeros_like(self).scatter_add(dim, index, src_zero.to(self.dtype())).gather(dim, index);
      const Tensor only_zero = src_zero.logical_and(zeros_in_slot.eq(1));
      const Tensor others = scatter_reduce(self, dim, index, src.masked_fill(only_zero, 1), "prod",
                                           include_self);
      grad_src = where(only_zero, (grad * others).gather(dim, index),
                       (grad * result).gather(dim, index) / src.masked_fill(src_zero, 1));
      break;
    }
  }
  if (!include_self) grad_self = grad_self.scatter(dim, index, 0);
  return {grad_self, grad_src};
}

}  // namespace

Tensor& scatter_reduce_(Tensor& t, int64_t dim, const Tensor& index, const Tensor& src,
                        const std::string& reduce, bool include_self) {
  const Reduce r = parse_reduce(reduce);
  dim = wrap_dim(dim, t.dim(), "scatter_reduce");
  check_scatter_gather("scatter_reduce", t, dim, index, &src);
  Recorder rec(Recorder::InPlace{}, "scatter_reduce_", t, {&src});
  const Tensor before = rec ? t.clone() : Tensor();
  if (index.numel() > 0) {
    scatter_reduce_kernel(t, dim, index, src, r, include_self);
    t.storage()->bump_version();
  }
  if (rec)
    rec.record("ScatterReduceBackward0", {t}, {before, index, src},
               [dim, r, include_self](const Grads& g, const Saved& s) {
                 return scatter_reduce_backward(g[0], s[0], dim, s[1], s[2], r, include_self, s[3]);
               },
               {t});
  return t;
}

Tensor scatter_reduce(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src,
                      const std::string& reduce, bool include_self) {
  const Reduce r = parse_reduce(reduce);
  dim = wrap_dim(dim, t.dim(), "scatter_reduce");
  check_scatter_gather("scatter_reduce", t, dim, index, &src);
  Recorder rec("scatter_reduce", {&t, &src});
  Tensor out = t.clone();
  if (index.numel() > 0) scatter_reduce_kernel(out, dim, index, src, r, include_self);
  if (rec)
    rec.record("ScatterReduceBackward0", {out}, {t, index, src},
               [dim, r, include_self](const Grads& g, const Saved& s) {
                 return scatter_reduce_backward(g[0], s[0], dim, s[1], s[2], r, include_self, s[3]);
               },
               {out});
  return out;
}

// ── index_select / index_add_ / index_copy_ / index_fill_ ──────────────────────────────────

Tensor index_select(const Tensor& t, int64_t dim, const Tensor& index) {
  dim = wrap_dim(dim, t.dim(), "index_select");
  Recorder rec("index_select", {&t});
  const Tensor s = at_least_1d(t).contiguous();
  const Tensor idx = vector_index("index_select", index, dim, s.size(dim), /*wrap=*/false);
  if (rec) {
    Tensor out = index_select(t, dim, index);  // grad mode is off: the kernel below
    rec.record("IndexSelectBackward0", {out}, {idx},
               [dim, in = DimVector(t.sizes())](const Grads& g, const Saved& s) {
                 if (in.empty()) return TensorList{g[0].reshape({})};
                 return TensorList{index_add(zeros(in, g[0].options()), dim, s[0], g[0])};
               });
    return out;
  }
  if (t.dim() == 0) return t.clone();
  DimVector shape(t.sizes());
  shape[size_t(dim)] = idx.numel();
  Tensor out = empty(shape, t.options());
  const Around a = around(s.sizes(), dim);
  const int64_t n = idx.numel();
  const int64_t* iv = idx.data_ptr<int64_t>();
  by_size(t.element_size(), [&]<class E>() {
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
  return out;
}

namespace {

void record_index_add(Recorder& rec, const Tensor& out, int64_t dim, const Tensor& index,
                      Scalar alpha, bool scalar_source) {
  rec.record("IndexAddBackward0", {out}, {index},
             [dim, alpha, scalar_source](const Grads& g, const Saved& s) {
               Tensor src = g[0].dim() == 0 ? g[0] : g[0].index_select(dim, s[0]);
               if (scalar_source) src = src.reshape({});
               if (!(alpha.is_integral() && alpha.to_int() == 1)) src = src * alpha;
               return TensorList{g[0], src};
             });
}

void record_index_copy(Recorder& rec, const Tensor& out, int64_t dim, const Tensor& index,
                       bool scalar_source) {
  rec.record("IndexCopyBackward0", {out}, {index},
             [dim, scalar_source](const Grads& g, const Saved& s) {
               if (g[0].dim() == 0) return TensorList{zeros_like(g[0]), g[0]};
               Tensor src = g[0].index_select(dim, s[0]);
               if (scalar_source) src = src.reshape({});
               return TensorList{index_fill(g[0], dim, s[0], 0), src};
             });
}

void record_index_fill(Recorder& rec, const Tensor& out, int64_t dim, const Tensor& index) {
  rec.record("IndexFillBackward0", {out}, {index}, [dim](const Grads& g, const Saved& s) {
    return TensorList{index_fill(g[0], dim, s[0], 0)};
  });
}

}  // namespace

Tensor& Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source, Scalar alpha) {
  Recorder rec(Recorder::InPlace{}, "index_add_", *this, {&source});
  if (rec) {
    Tensor& r = index_add_(dim, index, source, alpha);  // grad mode is off: the kernel below
    record_index_add(rec, r, wrap_dim(dim, this->dim(), "index_add_"), index, alpha,
                     source.dim() == 0);
    return r;
  }
  dim = wrap_dim(dim, this->dim(), "index_add_");
  const Tensor idx = vector_index("index_add_", index, dim, at_least_1d(*this).size(dim), false);
  check_source("index_add_", *this, dim, source, idx.numel());
  const Tensor x = at_least_1d(source).contiguous();
  const int64_t* iv = idx.data_ptr<int64_t>();
  const int64_t n = idx.numel();
  return in_place(*this, [&](Tensor& w) {
    const Around a = around(at_least_1d(w).sizes(), dim);
    dispatch(dtype(), "index_add_", [&]<class T>() {
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
  });
}

Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index, const Tensor& source) {
  Recorder rec(Recorder::InPlace{}, "index_copy_", *this, {&source});
  if (rec) {
    Tensor& r = index_copy_(dim, index, source);  // grad mode is off: the kernel below
    record_index_copy(rec, r, wrap_dim(dim, this->dim(), "index_copy_"), index, source.dim() == 0);
    return r;
  }
  dim = wrap_dim(dim, this->dim(), "index_copy_");
  const Tensor idx = vector_index("index_copy_", index, dim, at_least_1d(*this).size(dim), false,
                                  /*allow_int32=*/false);
  check_source("index_copy_", *this, dim, source, idx.numel());
  const Tensor x = at_least_1d(source).contiguous();
  const int64_t* iv = idx.data_ptr<int64_t>();
  const int64_t n = idx.numel();
  return in_place(*this, [&](Tensor& w) {
    const Around a = around(at_least_1d(w).sizes(), dim);
    by_size(element_size(), [&]<class E>() {
      E* dst = static_cast<E*>(w.data_ptr());
      const E* src = static_cast<const E*>(x.data_ptr());
      for_each_column_chunk(a, n, [&](int64_t o, int64_t c0, int64_t c1) {
        for (int64_t j = 0; j < n; ++j)
          std::copy(src + (o * n + j) * a.inner + c0, src + (o * n + j) * a.inner + c1,
                    dst + (o * a.size + iv[j]) * a.inner + c0);
      });
    });
  });
}

Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, Scalar value) {
  Recorder rec(Recorder::InPlace{}, "index_fill_", *this, {});
  if (rec) {
    Tensor& r = index_fill_(dim, index, value);  // grad mode is off: the kernel below
    record_index_fill(rec, r, wrap_dim(dim, this->dim(), "index_fill_"), index);
    return r;
  }
  dim = wrap_dim(dim, this->dim(), "index_fill_");
  const Tensor idx = vector_index("index_fill_", index, dim, at_least_1d(*this).size(dim),
                                  /*wrap=*/true, /*allow_int32=*/false);
  const int64_t* iv = idx.data_ptr<int64_t>();
  const int64_t n = idx.numel();
  const Tensor v = full({}, value, {.dtype = dtype()});
  return in_place(*this, [&](Tensor& w) {
    const Around a = around(at_least_1d(w).sizes(), dim);
    by_size(element_size(), [&]<class E>() {
      E* dst = static_cast<E*>(w.data_ptr());
      const E fill = *static_cast<const E*>(v.data_ptr());
      for_each_column_chunk(a, n, [&](int64_t o, int64_t c0, int64_t c1) {
        for (int64_t j = 0; j < n; ++j)
          std::fill(dst + (o * a.size + iv[j]) * a.inner + c0,
                    dst + (o * a.size + iv[j]) * a.inner + c1, fill);
      });
    });
  });
}

Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  return ember::index_select(*this, dim, index);
}
Tensor index_add(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source,
                 Scalar alpha) {
  Recorder rec("index_add", {&t, &source});
  Tensor out = t.clone();
  out.index_add_(dim, index, source, alpha);
  if (rec)
    record_index_add(rec, out, wrap_dim(dim, t.dim(), "index_add"), index, alpha,
                     source.dim() == 0);
  return out;
}
Tensor index_copy(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source) {
  Recorder rec("index_copy", {&t, &source});
  if (rec.autocast()) return index_copy(rec.cast(0), dim, index, rec.cast(1));
  Tensor out = t.clone();
  out.index_copy_(dim, index, source);
  if (rec)
    record_index_copy(rec, out, wrap_dim(dim, t.dim(), "index_copy"), index, source.dim() == 0);
  return out;
}
Tensor index_fill(const Tensor& t, int64_t dim, const Tensor& index, Scalar value) {
  Recorder rec("index_fill", {&t});
  Tensor out = t.clone();
  out.index_fill_(dim, index, value);
  if (rec) record_index_fill(rec, out, wrap_dim(dim, t.dim(), "index_fill"), index);
  return out;
}

// ── take / take_along_dim ──────────────────────────────────────────────────────────────────

Tensor take(const Tensor& t, const Tensor& index) {
  EMBER_CHECK(index.dtype() == kInt64, "take", "Expected a long tensor for index, but got ",
              index.dtype());
  Recorder rec("take", {&t});
  const Tensor s = t.contiguous(), i = index.contiguous();
  const int64_t n = s.numel();
  Tensor out = empty(index.sizes(), t.options());
  if (rec)
    rec.record("TakeBackward0", {out}, {index},
               [n, in = DimVector(t.sizes())](const Grads& g, const Saved& sv) {
                 const Tensor flat = sv[0].reshape({-1});
                 const Tensor idx = flat.lt(0).to(kInt64) * n + flat;
                 return TensorList{
                     index_add(zeros({n}, g[0].options()), 0, idx, g[0].reshape({-1})).view(in)};
               });
  if (i.numel() == 0) return out;
  EMBER_CHECK(n > 0, "take", "tried to take from an empty tensor");
  const int64_t* iv = i.data_ptr<int64_t>();
  BadIndex bad;
  by_size(t.element_size(), [&]<class E>() {
    const E* src = static_cast<const E*>(s.data_ptr());
    E* dst = static_cast<E*>(out.data_ptr());
    parallel_for(0, i.numel(), kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t j = b; j < e; ++j) {
        const int64_t k = iv[j];
        if (k < -n || k >= n) [[unlikely]] {
          bad.record(k);
          continue;
        }
        dst[j] = src[k < 0 ? k + n : k];
      }
    });
  });
  EMBER_CHECK(!bad.seen, "take", "out of range: tried to access index ", bad.value,
              " on a tensor of ", n, " elements.");
  return out;
}

Tensor take_along_dim(const Tensor& t, const Tensor& indices, std::optional<int64_t> dim) {
  EMBER_CHECK(indices.dtype() == kInt64, "take_along_dim",
              "dtype of indices should be Long but got ", indices.dtype());
  if (!dim) return gather(t.reshape({-1}), 0, indices.reshape({-1}));
  EMBER_CHECK(t.dim() == indices.dim(), "take_along_dim",
              "input and indices should have the same number of "
              "dimensions, but got ",
              t.dim(), " dimensions for input, and ", indices.dim(), " dimensions for indices");
  const int64_t d = wrap_dim(*dim, t.dim(), "take_along_dim");
  if (t.dim() == 0) return gather(t, d, indices);
  // Broadcast everything but dim: indices keep their length there, t keeps its own.
  DimVector self_sizes(t.sizes());
  self_sizes[size_t(d)] = indices.size(d);
  const DimVector shape = broadcast_shapes(self_sizes, indices.sizes());
  DimVector t_shape(shape);
  t_shape[size_t(d)] = t.size(d);
  return gather(t.expand(t_shape), d, indices.expand(shape));
}

// ── masks and nonzero ──────────────────────────────────────────────────────────────────────

Tensor masked_select(const Tensor& t, const Tensor& mask) {
  EMBER_CHECK(mask.dtype() == kBool || mask.dtype() == kUInt8, "masked_select",
              "masked_select: expected BoolTensor for mask, got ", mask.dtype());
  const DimVector shape = broadcast_shapes(t.sizes(), mask.sizes());
  Recorder rec("masked_select", {&t});
  if (rec) {
    Tensor out = masked_select(t, mask);  // grad mode is off: the kernel below
    rec.record("MaskedSelectBackward0", {out}, {mask}, [shape](const Grads& g, const Saved& s) {
      return TensorList{masked_scatter(zeros(shape, g[0].options()), s[0], g[0])};
    });
    return out;
  }
  const Tensor s = t.expand(shape).contiguous();
  const Tensor m = mask.expand(shape).to(kBool).contiguous();
  const bool* mv = m.data_ptr<bool>();
  Tensor out;
  by_size(t.element_size(), [&]<class E>() {
    const E* src = static_cast<const E*>(s.data_ptr());
    compact(
        s.numel(), [&](int64_t b, int64_t e) { return int64_t(std::count(mv + b, mv + e, true)); },
        [&](int64_t total) { out = empty({total}, t.options()); },
        [&](int64_t b, int64_t e, int64_t k) {
          E* dst = static_cast<E*>(out.data_ptr());
          for (int64_t i = b; i < e; ++i)
            if (mv[i]) dst[k++] = src[i];
        });
  });
  return out;
}

namespace {

void record_masked_scatter(Recorder& rec, const Tensor& out, const Tensor& mask,
                           const Tensor& source) {
  rec.record("MaskedScatterBackward0", {out}, {mask},
             [src = DimVector(source.sizes()), n = source.numel()](const Grads& g, const Saved& s) {
               const Tensor m = s[0].to(kBool);
               Tensor picked = masked_select(g[0], m);
               if (picked.numel() < n)
                 picked = cat({picked, zeros({n - picked.numel()}, g[0].options())});
               return TensorList{g[0].masked_fill(m, 0), picked.view(src)};
             });
}

}  // namespace

Tensor& masked_scatter_(Tensor& t, const Tensor& mask, const Tensor& source) {
  Recorder rec(Recorder::InPlace{}, "masked_scatter_", t, {&source});
  if (rec) {
    masked_scatter_(t, mask, source);  // grad mode is off: the kernel below
    record_masked_scatter(rec, t, mask, source);
    return t;
  }
  EMBER_CHECK(mask.dtype() == kBool || mask.dtype() == kUInt8, "masked_scatter_",
              "masked_scatter_: expected BoolTensor or ByteTensor for mask, got ", mask.dtype());
  EMBER_CHECK(source.dtype() == t.dtype(), "masked_scatter_",
              "masked_scatter: expected self and source to have same dtypes but got ", t.dtype(),
              " and ", source.dtype());
  const Tensor m = mask.expand(t.sizes()).to(kBool).contiguous();
  const Tensor x = source.contiguous();
  const bool* mv = m.data_ptr<bool>();
  const int64_t ones = std::count(mv, mv + m.numel(), true);
  EMBER_CHECK(ones <= x.numel(), "masked_scatter_", "Number of elements of source (", x.numel(),
              ") < number of ones in mask (", ones, ")");
  return in_place(t, [&](Tensor& w) {
    by_size(t.element_size(), [&]<class E>() {
      E* dst = static_cast<E*>(w.data_ptr());
      const E* src = static_cast<const E*>(x.data_ptr());
      for (int64_t i = 0, k = 0; i < w.numel(); ++i)  // serial: source is consumed in order
        if (mv[i]) dst[i] = src[k++];
    });
  });
}

Tensor masked_scatter(const Tensor& t, const Tensor& mask, const Tensor& source) {
  Recorder rec("masked_scatter", {&t, &source});
  Tensor out = t.expand(broadcast_shapes(t.sizes(), mask.sizes())).clone();
  masked_scatter_(out, mask, source);
  if (rec) record_masked_scatter(rec, out, mask, source);
  return out;
}

Tensor nonzero(const Tensor& t) {
  OpScope scope("nonzero", {&t});
  const Tensor s = t.contiguous();
  const int64_t nd = t.dim();
  const DimVector sizes(t.sizes());
  Tensor out;
  dispatch(t.dtype(), "nonzero", [&]<class T>() {
    const T* v = s.data_ptr<T>();
    compact(
        s.numel(),
        [&](int64_t b, int64_t e) {
          int64_t c = 0;
          for (int64_t i = b; i < e; ++i) c += convert<bool>(v[i]);
          return c;
        },
        [&](int64_t total) {
          out = empty({total, nd}, {.dtype = kInt64});
        },
        [&](int64_t b, int64_t e, int64_t k) {
          int64_t* dst = out.data_ptr<int64_t>();
          for (int64_t i = b; i < e; ++i) {
            if (!convert<bool>(v[i])) continue;
            int64_t* row = dst + k++ * nd;
            for (int64_t d = nd - 1, rest = i; d >= 0; --d) {
              row[d] = rest % sizes[size_t(d)];
              rest /= sizes[size_t(d)];
            }
          }
        });
  });
  return out;
}

std::vector<Tensor> nonzero_tuple(const Tensor& t) {
  if (t.dim() == 0) return {nonzero(t.reshape({1})).select(1, 0)};
  return nonzero(t).unbind(1);
}

Tensor argwhere(const Tensor& t) { return nonzero(t); }

Tensor Tensor::masked_select(const Tensor& mask) const { return ember::masked_select(*this, mask); }
Tensor Tensor::nonzero() const { return ember::nonzero(*this); }

}  // namespace ember
