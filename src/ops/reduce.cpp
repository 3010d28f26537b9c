// Reductions over any set of dims: sum, nansum, mean, nanmean, prod, amax/amin, aminmax,
// all/any, count_nonzero, norm / vector_norm, var/std (+ _mean). Index-returning reductions
// (max/min with dim, argmax/argmin) and logsumexp live in reduce_index.cpp; softmax and scans in
// softmax.cpp.
//
// Note [Reduction layouts]
// The input is viewed as (kept dims..., reduced dims...), reduced dims ordered by memory stride.
// The innermost reduced dims that are contiguous form a "run" of L elements, reduced with SIMD
// accumulators and pairwise splitting; any remaining reduced dims are walked around the runs.
// When nothing contiguous is reduced but the kept dims are (sum over dim 0 of a matrix), the
// kernel instead accumulates whole rows into a row of outputs, SIMD across the row. Layouts that
// are neither (rare) are first copied to contiguous. Parallelism is over outputs; a reduction to
// fewer outputs than threads cuts each output's pairwise tree into subtrees for the threads
// (Note [Deterministic parallel sums] in backend/cpu/reduce.h), so no result depends on the
// thread count.
#include "ops/reduce.h"

#include "autograd/function.h"

#include <cmath>
#include <limits>
#include <memory>

#include "backend/backend.h"
#include "backend/cpu/reduce.h"
#include "core/dispatch.h"
#include "ember/creation.h"
#include "ember/index_ops.h"
#include "ember/math.h"
#include "ember/reduce.h"
#include "ember/shape.h"

namespace ember {

DimVector reduction_dims(IntArrayRef dims, int64_t ndim, const char* op) {
  DimVector out;
  if (dims.empty()) {
    for (int64_t d = 0; d < ndim; ++d) out.push_back(d);
    return out;
  }
  std::vector<bool> seen(size_t(std::max<int64_t>(ndim, 1)), false);
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, ndim, op);
    EMBER_CHECK(!seen[w], op, "dim ", w, " appears multiple times in the list of dims");
    seen[w] = true;
    if (ndim > 0) out.push_back(w);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Tensor unreduce(const Tensor& grad, IntArrayRef sizes, IntArrayRef dims, bool keepdim) {
  const Tensor g = keepdim ? grad : grad.reshape(reduced_shape(sizes, dims, true));
  return g.expand(sizes);
}

Tensor keep_reduced(const Tensor& t, IntArrayRef sizes, IntArrayRef dims, bool keepdim) {
  if (keepdim || int64_t(sizes.size()) == t.dim()) return t;
  return t.reshape(reduced_shape(sizes, dims, true));
}

Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& input, const Tensor& value) {
  const Tensor mask = value.isnan().item<bool>() ? input.isnan() : input.eq(value);
  return mask * (grad / mask.sum());
}

Tensor value_selecting_backward(const Tensor& grad, int64_t dim, const Tensor& indices,
                                IntArrayRef sizes, bool keepdim) {
  if (sizes.empty()) return grad;  // a 0-d input: the only element was selected
  const DimVector d{dim};
  return zeros(sizes, {.dtype = grad.dtype()})
      .scatter(dim, keep_reduced(indices, sizes, d, keepdim), keep_reduced(grad, sizes, d, keepdim));
}

DimVector reduced_shape(IntArrayRef sizes, IntArrayRef dims, bool keepdim) {
  DimVector out;
  for (int64_t d = 0; d < int64_t(sizes.size()); ++d) {
    const bool reduced = std::find(dims.begin(), dims.end(), d) != dims.end();
    if (!reduced) out.push_back(sizes[d]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

namespace {

using cpu::Vec;

// ── reducers ────────────────────────────────────────────────────────────
struct SumReducer {
  template <class A> A init() const { return A(0); }
  template <class V> V pre(V x) const { return x; }
  template <class V> V combine(V a, V b) const { return a + b; }
  template <class A> A finish(A a) const { return a; }
};

template <class T> Vec<T> nan_to_zero(Vec<T> x) {
  return cpu::select<T>(cpu::isnan_mask(x), Vec<T>(T(0)), x);
}
template <class T> T nan_to_zero(T x) { return x != x ? T(0) : x; }

struct NanSumReducer : SumReducer {
  template <class V> V pre(V x) const { return nan_to_zero(x); }
};

struct MeanReducer : SumReducer {
  double divisor;
  template <class A> A finish(A a) const { return a / A(divisor); }
};

struct ProdReducer {
  template <class A> A init() const { return A(1); }
  template <class V> V pre(V x) const { return x; }
  template <class V> V combine(V a, V b) const { return a * b; }
  template <class A> A finish(A a) const { return a; }
};

struct MaxReducer {
  template <class A> A init() const {
    if constexpr (std::is_floating_point_v<A>) return -std::numeric_limits<A>::infinity();
    else return std::numeric_limits<A>::lowest();
  }
  template <class V> V pre(V x) const { return x; }
  template <class V> V combine(V a, V b) const { return cpu::vmax(a, b); }
  template <class A> A finish(A a) const { return a; }
};

struct MinReducer {
  template <class A> A init() const {
    if constexpr (std::is_floating_point_v<A>) return std::numeric_limits<A>::infinity();
    else return std::numeric_limits<A>::max();
  }
  template <class V> V pre(V x) const { return x; }
  template <class V> V combine(V a, V b) const { return cpu::vmin(a, b); }
  template <class A> A finish(A a) const { return a; }
};

// |x|^p summed; finish takes the p-th root. p = 1 and 2 get exact fast paths.
struct NormReducer {
  double p;
  template <class A> A init() const { return A(0); }
  template <class V> V pre(V x) const {
    if (p == 2) return x * x;
    if (p == 1) return abs_of(x);
    return pow_of(abs_of(x), p);
  }
  template <class T> static Vec<T> abs_of(Vec<T> x) { return cpu::abs(x); }
  template <class T> static T abs_of(T x) { return x < 0 ? -x : x; }
  template <class T> static Vec<T> pow_of(Vec<T> x, double e) { return cpu::pow(x, Vec<T>(T(e))); }
  template <class T> static T pow_of(T x, double e) { return std::pow(x, T(e)); }
  template <class V> V combine(V a, V b) const { return a + b; }
  template <class A> A finish(A a) const {
    if (p == 2) return std::sqrt(a);
    if (p == 1) return a;
    return std::pow(a, A(1.0 / p));
  }
};

struct AbsMaxReducer : MaxReducer {
  template <class V> V pre(V x) const { return NormReducer::abs_of(x); }
};
struct AbsMinReducer : MinReducer {
  template <class V> V pre(V x) const { return NormReducer::abs_of(x); }
};

// (min, max) in one pass: lo/hi lanes that propagate NaN like amin/amax.
template <class T>
struct MinMax {
  T lo, hi;
};
struct MinMaxReducer {
  template <class A> A init() const {
    using T = decltype(A::lo);
    return {MinReducer{}.init<T>(), MaxReducer{}.init<T>()};
  }
  template <class A> A combine(A a, A b) const {
    return {cpu::vmin(a.lo, b.lo), cpu::vmax(a.hi, b.hi)};
  }
  template <class A> A finish(A a) const { return a; }
  template <class A, class In> A lift(In x) const {
    const auto c = convert<decltype(A::lo)>(x);
    return {c, c};
  }
  // SIMD leaf for float/double: two vector lanes (lo, hi) per element read.
  template <class In> auto leaf(const In* p, int64_t n) const {
    using T = compute_t<In>;
    MinMax<T> acc = init<MinMax<T>>();
    int64_t i = 0;
    if constexpr (cpu::simd_type_v<In>) {
      constexpr int W = Vec<T>::size;
      if (n >= 2 * W) {
        Vec<T> lo0 = Vec<T>::load(p), hi0 = lo0, lo1 = Vec<T>::load(p + W), hi1 = lo1;
        for (i = 2 * W; i + 2 * W <= n; i += 2 * W) {
          const Vec<T> a = Vec<T>::load(p + i), b = Vec<T>::load(p + i + W);
          lo0 = cpu::vmin(lo0, a);
          hi0 = cpu::vmax(hi0, a);
          lo1 = cpu::vmin(lo1, b);
          hi1 = cpu::vmax(hi1, b);
        }
        const Vec<T> lo = cpu::vmin(lo0, lo1), hi = cpu::vmax(hi0, hi1);
        for (int k = 0; k < W; ++k) acc = combine(acc, MinMax<T>{lo[k], hi[k]});
      }
    }
    for (; i < n; ++i) acc = combine(acc, lift<MinMax<T>>(p[i]));
    return acc;
  }
};

// Welford-style moments (count, mean, M2) for var/std and their _mean variants: blocks are
// reduced two-pass in double and merged with Chan's formula (backend/cpu/reduce.h).
struct MomentsReducer : cpu::MomentsMerge {
  template <class A> A init() const { return {}; }
  template <class A> A finish(A a) const { return a; }
  template <class A, class In> A lift(In x) const {
    return {1, double(convert<compute_t<In>>(x)), 0};
  }
  template <class In> cpu::Moments leaf(const In* p, int64_t n) const {
    return cpu::moments_leaf(p, n);
  }
  template <class In>
  void rows(cpu::Moments* out, const In* x, int64_t K, int64_t J, int64_t row_stride) const {
    cpu::moments_rows(out, x, K, J, row_stride);
  }
};

// ── the engine ──────────────────────────────────────────────────────────
struct Layout {
  Tensor x;          // permuted view: kept dims, then reduced dims (memory order)
  int64_t nkept;     // number of kept dims in x
  int64_t run = 1;   // contiguous innermost reduced elements
  int64_t nouter;    // reduced dims outside the run: x dims [nkept, nkept + nouter)
};

Layout plan_layout(const Tensor& self, IntArrayRef dims) {
  DimVector order, reduced(dims);
  for (int64_t d = 0; d < self.dim(); ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) order.push_back(d);
  const int64_t nkept = int64_t(order.size());
  std::stable_sort(reduced.begin(), reduced.end(), [&](int64_t a, int64_t b) {
    return self.strides()[a] > self.strides()[b];
  });
  for (int64_t d : reduced) order.push_back(d);
  Layout l{self.permute(order), nkept, 1, 0};
  int64_t expected = 1, d = l.x.dim() - 1;
  for (; d >= nkept; --d) {
    const int64_t size = l.x.sizes()[d];
    if (size != 1 && l.x.strides()[d] != expected) break;
    l.run *= size;
    expected *= size;
  }
  l.nouter = d - nkept + 1;
  return l;
}

// The single stride that walks dims [0, n) in order, if they collapse into one (size-1 dims
// are skipped).
std::optional<int64_t> collapse(const int64_t* sizes, const int64_t* strides, int64_t n) {
  std::optional<int64_t> stride;
  int64_t next = 0;  // expected stride of the previous (outer) dim
  for (int64_t d = n - 1; d >= 0; --d) {
    if (sizes[d] == 1) continue;
    if (stride && strides[d] != next) return std::nullopt;
    if (!stride) stride = strides[d];
    next = strides[d] * sizes[d];
  }
  return stride.value_or(1);
}

// out (contiguous, M elements) = reduce over x's reduced dims, per Note [Reduction layouts].
template <class Out, class Acc, class In, class R>
void run_reduction(Out* out, Layout l, const R& r) {
  const Tensor& x = l.x;
  const int64_t M = prod(IntArrayRef(x.sizes().data(), size_t(l.nkept)));
  const In* base = static_cast<const In*>(x.data_ptr());
  // Rows layout: nothing contiguous reduced, kept dims contiguous and innermost.
  if (l.run == 1 && l.nouter > 0 && l.nkept > 0 && x.strides()[l.nkept - 1] == 1 && M > 1) {
    // Kept dims must form one contiguous row; reduced dims must collapse to one stride.
    const auto kept = collapse(x.sizes().data(), x.strides().data(), l.nkept);
    const auto red = collapse(x.sizes().data() + l.nkept, x.strides().data() + l.nkept, l.nouter);
    if (kept && *kept == 1 && red) {
      int64_t K = 1;
      for (int64_t d = l.nkept; d < l.nkept + l.nouter; ++d) K *= x.sizes()[d];
      cpu::reduce_rows<Out, Acc, In>(out, base, K, M, *red, r);
      return;
    }
  }
  if (l.run == 1 && l.nouter > 0) {
    // Neither layout fits: reduce a contiguous copy, where the whole reduction is one run.
    Layout c{x.contiguous(), l.nkept, 1, 0};
    for (int64_t d = l.nkept; d < x.dim(); ++d) c.run *= x.sizes()[d];
    run_reduction<Out, Acc, In>(out, c, r);
    return;
  }
  // Runs layout. Each output combines its `outer` runs pairwise (Note [Deterministic parallel
  // sums] in backend/cpu/reduce.h), so the result is the same whichever thread computes it.
  const IntArrayRef sizes = x.sizes(), strides = x.strides();
  const int64_t L = l.run;
  int64_t outer = 1;
  for (int64_t d = l.nkept; d < l.nkept + l.nouter; ++d) outer *= sizes[d];
  auto offset_of = [&](int64_t index, int64_t first, int64_t count) {
    int64_t off = 0;
    for (int64_t d = first + count - 1; d >= first; --d) {
      off += (index % sizes[d]) * strides[d];
      index /= sizes[d];
    }
    return off;
  };
  auto runs = [&](const In* p) {
    return [&r, p, L, &offset_of, &l](int64_t o0, int64_t n) {
      Acc acc = cpu::reduce_run<Acc>(p + offset_of(o0, l.nkept, l.nouter), L, r);
      for (int64_t o = o0 + 1; o < o0 + n; ++o)  // n > 1 only for runs of a few elements
        acc = r.combine(acc, cpu::reduce_run<Acc>(p + offset_of(o, l.nkept, l.nouter), L, r));
      return acc;
    };
  };
  // Runs of a few elements are grouped into leaves of about 64 elements (one call each).
  const int64_t leaf = std::max<int64_t>(1, 64 / std::max<int64_t>(L, 1));
  const int threads = get_num_threads();
  if (M >= threads || M * outer * L < kGrainSize) {
    parallel_for(0, M, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, outer * L)),
                 [&](int64_t m0, int64_t m1) {
                   for (int64_t m = m0; m < m1; ++m) {
                     const In* p = base + offset_of(m, 0, l.nkept);
                     const Acc acc = outer == 1 ? cpu::reduce_run<Acc>(p, L, r)
                                                : cpu::tree_reduce<Acc>(0, outer, leaf, 1, runs(p), r);
                     out[m] = convert<Out>(r.finish(acc));
                   }
                 });
    return;
  }
  // Few outputs, much work: each output's tree is cut into subtrees for the threads.
  for (int64_t m = 0; m < M; ++m) {
    const In* p = base + offset_of(m, 0, l.nkept);
    const Acc acc = outer == 1 ? cpu::reduce_run_parallel<Acc>(p, L, r)
                               : cpu::tree_reduce_parallel<Acc>(outer, leaf, 1, L, runs(p), r);
    out[m] = convert<Out>(r.finish(acc));
  }
}

// Accumulation type: float for half types, int64 for integer sums, the type itself otherwise.
template <class T, bool WidenInts>
using acc_t = std::conditional_t<WidenInts && std::is_integral_v<T>, int64_t, compute_t<T>>;

/// Reduces `self` over dims into a new tensor of out_dtype. When `widen_ints`, integer inputs
/// accumulate in int64 (and out_dtype is int64).
template <DtypeSet S, bool WidenInts, class R>
Tensor reduce(const char* op, const Tensor& self, IntArrayRef dims_in, bool keepdim,
              Dtype out_dtype, const R& r) {
  backend::cpu_only(op, self);
  const DimVector dims = reduction_dims(dims_in, self.dim(), op);
  const DimVector out_shape = reduced_shape(self.sizes(), dims, keepdim);
  Tensor out = empty(reduced_shape(self.sizes(), dims, false), {.dtype = out_dtype});
  const Layout layout = plan_layout(self, dims);
  dispatch<S>(self.dtype(), op, [&]<class In>() {
    using Acc = acc_t<In, WidenInts>;
    dispatch(out_dtype, op, [&]<class Out>() {
      if constexpr (std::is_same_v<Out, In> || std::is_same_v<Out, Acc> ||
                    std::is_same_v<Out, bool>) {
        run_reduction<Out, Acc, In>(out.data_ptr<Out>(), layout, r);
      } else {
        fail(op, "unsupported output dtype ", out_dtype, " for input dtype ", self.dtype());
      }
    });
  });
  return keepdim ? out.view(out_shape) : out;
}

void check_nonempty(const Tensor& self, IntArrayRef dims, const char* op) {
  const DimVector d = reduction_dims(dims, self.dim(), op);
  for (int64_t i : d)
    EMBER_CHECK(self.sizes()[i] != 0, op, "Expected reduction dim ", i,
                " to have non-zero size.");
  EMBER_CHECK(self.numel() != 0 || self.dim() != 0 || !d.empty(), op,
              "Expected reduction dim to be specified for input.numel() == 0.");
}

Dtype sum_dtype(const Tensor& self, std::optional<Dtype> dtype) {
  if (dtype) return *dtype;
  return is_integral(self.dtype(), true) ? kInt64 : self.dtype();
}

Tensor sum_impl(const Tensor& self, IntArrayRef dims, bool keepdim, std::optional<Dtype> dtype,
                 const char* node) {
  autograd::Recorder rec("sum", {&self});
  const Dtype out = sum_dtype(self, dtype);
  const Tensor in = self.dtype() == out || (is_integral(self.dtype(), true) && out == kInt64)
                        ? self
                        : self.to(out);
  Tensor r = reduce<DtypeSet::All, true>("sum", in, dims, keepdim, out, SumReducer{});
  if (rec)
    rec.record(node, {r}, {},
               [sizes = DimVector(self.sizes()), d = reduction_dims(dims, self.dim(), "sum"),
                keepdim](const autograd::Grads& g, const autograd::Saved&) {
                 return autograd::TensorList{unreduce(g[0], sizes, d, keepdim)};
               });
  return r;
}

Tensor mean_impl(const Tensor& self, IntArrayRef dims_in, bool keepdim, std::optional<Dtype> dtype,
                 const char* op) {
  const Dtype out = dtype.value_or(self.dtype());
  EMBER_CHECK(is_floating_point(out), op, "could not infer output dtype. Input dtype must be ",
              "either a floating point or complex dtype. Got: ", self.dtype());
  const DimVector dims = reduction_dims(dims_in, self.dim(), op);
  int64_t count = 1;
  for (int64_t d : dims) count *= self.sizes()[d];
  autograd::Recorder rec(op, {&self});
  const Tensor in = self.dtype() == out ? self : self.to(out);
  Tensor r = reduce<DtypeSet::Floating, false>(op, in, dims, keepdim, out,
                                               MeanReducer{{}, double(count)});
  if (rec)
    rec.record(dims_in.empty() ? "MeanBackward0" : "MeanBackward1", {r}, {},
               [sizes = DimVector(self.sizes()), dims, keepdim, count](
                   const autograd::Grads& g, const autograd::Saved&) {
                 return autograd::TensorList{unreduce(g[0], sizes, dims, keepdim) / count};
               });
  return r;
}

// all/any return bool, except for uint8 inputs, which give uint8 (as PyTorch does).
Tensor all_dims(const Tensor& self, IntArrayRef dims, bool keepdim) {
  const Tensor r =
      reduce<DtypeSet::All, false>("all", self.to(kBool), dims, keepdim, kBool, MinReducer{});
  return self.dtype() == kUInt8 ? r.to(kUInt8) : r;
}
Tensor any_dims(const Tensor& self, IntArrayRef dims, bool keepdim) {
  const Tensor r =
      reduce<DtypeSet::All, false>("any", self.to(kBool), dims, keepdim, kBool, MaxReducer{});
  return self.dtype() == kUInt8 ? r.to(kUInt8) : r;
}

// (var or std, mean) over dims from one pass (MomentsReducer); the mean only if asked for.
std::tuple<Tensor, Tensor> var_impl(const Tensor& self, std::optional<IntArrayRef> dims_opt,
                                    int64_t correction, bool keepdim, bool take_sqrt,
                                    bool want_mean, const char* op) {
  EMBER_CHECK(self.is_floating_point(), op, "std and var only support floating point and ",
              "complex dtypes, got ", self.dtype());
  backend::cpu_only(op, self);
  const DimVector dims = reduction_dims(dims_opt.value_or(IntArrayRef()), self.dim(), op);
  const DimVector flat = reduced_shape(self.sizes(), dims, false);
  Tensor var = empty(flat, {.dtype = self.dtype()});
  Tensor mean = want_mean ? empty(flat, {.dtype = self.dtype()}) : Tensor();
  const int64_t M = var.numel();
  dispatch<DtypeSet::Floating>(self.dtype(), op, [&]<class T>() {
    const auto moments = std::make_unique<cpu::Moments[]>(size_t(M));
    run_reduction<cpu::Moments, cpu::Moments, T>(moments.get(), plan_layout(self, dims),
                                                 MomentsReducer{});
    T* v = var.data_ptr<T>();
    T* mu = want_mean ? mean.data_ptr<T>() : nullptr;
    for (int64_t m = 0; m < M; ++m) {
      const cpu::Moments& s = moments[m];
      // PyTorch divides by max(0, n - correction): n <= correction gives inf (or nan for 0/0).
      const double r = s.m2 / double(std::max<double>(0, s.n - double(correction)));
      v[m] = convert<T>(take_sqrt ? std::sqrt(r) : r);
      if (mu) mu[m] = convert<T>(s.n == 0 ? std::numeric_limits<double>::quiet_NaN() : s.mean);
    }
  });
  if (!keepdim) return {var, mean};
  const DimVector kept = reduced_shape(self.sizes(), dims, true);
  return {var.view(kept), want_mean ? mean.view(kept) : mean};
}


// ── backward formulas (PyTorch 1.13's FunctionsManual.cpp), in differentiable ops ──────────
using autograd::Grads;
using autograd::Recorder;
using autograd::Saved;
using autograd::TensorList;

int64_t count_of(IntArrayRef sizes, IntArrayRef dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= sizes[size_t(d)];
  return n;
}

// Gradient of a product along `dim` when the input holds zeros: the product of every other
// element, from exclusive cumulative products taken from both ends.
Tensor prod_safe_zeros_backward(const Tensor& grad, const Tensor& input, int64_t dim) {
  const int64_t n = input.size(dim);
  if (n == 1) return grad;
  DimVector one(input.sizes());
  one[size_t(dim)] = 1;
  const Tensor ones_ = ones(one, {.dtype = input.dtype()});
  const Tensor before = cat({ones_, input.narrow(dim, 0, n - 1)}, dim).cumprod(dim);
  const Tensor after =
      flip(cat({ones_, flip(input.narrow(dim, 1, n - 1), {dim})}, dim).cumprod(dim), {dim});
  return grad * (before * after);
}

// prod over all dims (dims empty) or one dim.
Tensor prod_backward(const Tensor& grad, const Tensor& input, const Tensor& result,
                     std::optional<int64_t> dim, bool keepdim) {
  if (input.dim() == 0) return grad;
  const int64_t zeros_ = input.eq(0).sum().item<int64_t>();
  if (!dim) {
    if (zeros_ == 0) return grad * (result / input);
    if (zeros_ > 1) return zeros_like(input);
    return prod_safe_zeros_backward(grad, input.reshape({input.numel()}), 0).view(input.sizes());
  }
  const DimVector d{*dim};
  const Tensor g = keep_reduced(grad, input.sizes(), d, keepdim);
  if (zeros_ == 0) return g * (keep_reduced(result, input.sizes(), d, keepdim) / input);
  return prod_safe_zeros_backward(g, input, *dim);
}

Tensor prod_recorded(const Tensor& self, std::optional<int64_t> dim, bool keepdim,
                     std::optional<Dtype> dtype) {
  Recorder rec("prod", {&self});
  if (rec.autocast()) return prod_recorded(rec.cast(0), dim, keepdim, dtype);
  const Dtype out = sum_dtype(self, dtype);
  const Tensor in = out == self.dtype() || !is_floating_point(out) ? self : self.to(out);
  Tensor r = dim ? reduce<DtypeSet::All, true>("prod", in, {*dim}, keepdim, out, ProdReducer{})
                 : reduce<DtypeSet::All, true>("prod", in, {}, false, out, ProdReducer{});
  if (rec) {
    const std::optional<int64_t> d =
        dim ? std::optional<int64_t>(self.dim() == 0 ? 0 : wrap_dim(*dim, self.dim(), "prod"))
            : std::nullopt;
    rec.record(dim ? "ProdBackward1" : "ProdBackward0", {r}, {self},
               [d, keepdim](const Grads& g, const Saved& s) {
                 return TensorList{prod_backward(g[0], s[0], s[1], d, keepdim)};
               },
               {r});
  }
  return r;
}

// amax/amin (and max()/min(), evenly among NaN too). Saved: {self}, {result}.
Tensor extremum_recorded(const Tensor& self, IntArrayRef dims_in, bool keepdim, bool is_max,
                         const char* node) {
  Recorder rec(is_max ? "amax" : "amin", {&self});
  Tensor r = is_max ? reduce<DtypeSet::All, false>("amax", self, dims_in, keepdim, self.dtype(),
                                                   MaxReducer{})
                    : reduce<DtypeSet::All, false>("amin", self, dims_in, keepdim, self.dtype(),
                                                   MinReducer{});
  if (rec) {
    const bool whole = std::string_view(node) == "MaxBackward1" ||
                       std::string_view(node) == "MinBackward1";
    rec.record(node, {r}, {self},
               [whole, keepdim, dims = reduction_dims(dims_in, self.dim(), "amax")](
                   const Grads& g, const Saved& s) {
                 if (whole) return TensorList{evenly_distribute_backward(g[0], s[0], s[1])};
                 // scale_grad_by_count: the gradient shared among the ties of each slice.
                 const Tensor mask = s[0].eq(keep_reduced(s[1], s[0].sizes(), dims, keepdim));
                 const Tensor gk = keep_reduced(g[0], s[0].sizes(), dims, keepdim);
                 return TensorList{(gk / mask.sum(IntArrayRef(dims), true)) * mask};
               },
               {r});
  }
  return r;
}

// var/std (and the _mean forms): grads {var or std, mean}.
Tensor var_backward(const Tensor& grad, const Tensor& self, IntArrayRef dims, int64_t correction,
                    bool keepdim) {
  const int64_t n = count_of(self.sizes(), dims);
  const Tensor g = keep_reduced(grad, self.sizes(), dims, keepdim);
  return (2.0 / double(n - correction)) * g * (self - self.mean(dims, true));
}

Tensor std_backward(const Tensor& result, const Tensor& grad, const Tensor& self, IntArrayRef dims,
                    int64_t correction, bool keepdim) {
  const Tensor grad_var = (grad / (result * 2)).masked_fill(result.eq(0), 0);
  return var_backward(grad_var, self, dims, correction, keepdim);
}

std::tuple<Tensor, Tensor> var_recorded(const Tensor& self, std::optional<IntArrayRef> dims_opt,
                                        int64_t correction, bool keepdim, bool take_sqrt,
                                        bool want_mean, const char* op) {
  Recorder rec(op, {&self});
  auto [v, m] = var_impl(self, dims_opt, correction, keepdim, take_sqrt, want_mean, op);
  if (rec) {
    const char* node = want_mean ? (take_sqrt ? "StdMeanBackward0" : "VarMeanBackward0")
                                 : (take_sqrt ? "StdBackward0" : "VarBackward0");
    const DimVector dims = reduction_dims(dims_opt.value_or(IntArrayRef()), self.dim(), op);
    auto fn = [dims, correction, keepdim, take_sqrt](const Grads& g, const Saved& s) {
      const Tensor& self = s[0];
      Tensor gi;
      if (g[0].defined())
        gi = take_sqrt ? std_backward(s[1], g[0], self, dims, correction, keepdim)
                       : var_backward(g[0], self, dims, correction, keepdim);
      if (g.size() > 1 && g[1].defined()) {
        const Tensor gm =
            unreduce(g[1], self.sizes(), dims, keepdim) / double(count_of(self.sizes(), dims));
        gi = gi.defined() ? gi + gm : gm;
      }
      return TensorList{gi};
    };
    if (want_mean)
      rec.record(node, std::vector<Tensor>{v, m}, {self}, fn, {v});
    else
      rec.record(node, {v}, {self}, fn, {v});
  }
  return {v, m};
}

// norm_backward of PyTorch 1.13 (p = 0, 1, 2, +-inf, and the general p branches).
Tensor norm_backward(Tensor grad, const Tensor& self, double p, Tensor norm, IntArrayRef dims,
                     bool keepdim) {
  grad = keep_reduced(grad, self.sizes(), dims, keepdim);
  norm = keep_reduced(norm, self.sizes(), dims, keepdim);
  if (p == 0) return Tensor();
  if (p == 1) return self.sign() * grad;
  if (p == 2) return grad * (self / norm).masked_fill(norm.eq(0), 0);
  if (std::isinf(p)) {
    const Tensor self_abs = self.abs();
    const Tensor mask = logical_or(self_abs.eq(norm), self_abs.isnan());
    return self.sign() * ((grad / mask.sum(dims, true)) * mask);
  }
  if (p < 1) {
    const Tensor self_scaled = self.sign() * self.abs().pow(p - 1).masked_fill(self.eq(0), 0);
    return self_scaled * grad * norm.pow(1 - p);
  }
  const Tensor self_scaled = p < 2 ? self.sign() * self.abs().pow(p - 1)
                                   : self * self.abs().pow(p - 2);
  const Tensor scale_v = (grad / norm.pow(p - 1)).masked_fill(norm.eq(0), 0);
  return self_scaled * scale_v;
}

Tensor vector_norm_impl(const Tensor& self, double p, IntArrayRef dims_in, bool keepdim);

Tensor norm_recorded(const Tensor& self, double p, IntArrayRef dims_in, bool keepdim,
                     const char* node) {
  Recorder rec("norm", {&self});
  Tensor r = vector_norm_impl(self, p, dims_in, keepdim);
  if (rec)
    rec.record(node, {r}, {self},
               [p, keepdim, dims = reduction_dims(dims_in, self.dim(), "norm")](const Grads& g,
                                                                                const Saved& s) {
                 return TensorList{norm_backward(g[0], s[0], p, s[1], dims, keepdim)};
               },
               {r});
  return r;
}

}  // namespace

// ── public functions and methods ────────────────────────────────────────
Tensor Tensor::sum(std::optional<Dtype> dtype) const {
  return sum_impl(*this, {}, false, dtype, "SumBackward0");
}
Tensor Tensor::sum(IntArrayRef dims, bool keepdim, std::optional<Dtype> dtype) const {
  return sum_impl(*this, dims, keepdim, dtype, "SumBackward1");
}
Tensor Tensor::sum(int64_t dim, bool keepdim, std::optional<Dtype> dtype) const {
  return sum_impl(*this, {dim}, keepdim, dtype, "SumBackward1");
}
Tensor Tensor::nansum(std::optional<Dtype> dtype) const { return nansum({}, false, dtype); }
Tensor Tensor::nansum(IntArrayRef dims, bool keepdim, std::optional<Dtype> dtype) const {
  const Dtype out = sum_dtype(*this, dtype);
  const Tensor in = ember::is_floating_point(out) && dtype && *dtype != this->dtype() ? to(out) : *this;
  if (!ember::is_floating_point(in.dtype())) return sum_impl(in, dims, keepdim, dtype, "SumBackward1");
  autograd::Recorder rec("nansum", {this});
  Tensor r = reduce<DtypeSet::Floating, false>("nansum", in, dims, keepdim, out, NanSumReducer{});
  if (rec)
    rec.record("NansumBackward0", {r}, {*this},
               [d = reduction_dims(dims, this->dim(), "nansum"), keepdim](
                   const autograd::Grads& g, const autograd::Saved& s) {
                 return autograd::TensorList{unreduce(g[0], s[0].sizes(), d, keepdim) *
                                             s[0].isnan().logical_not()};
               });
  return r;
}
Tensor Tensor::mean(std::optional<Dtype> dtype) const {
  return mean_impl(*this, {}, false, dtype, "mean");
}
Tensor Tensor::mean(IntArrayRef dims, bool keepdim, std::optional<Dtype> dtype) const {
  return mean_impl(*this, dims, keepdim, dtype, "mean");
}
Tensor Tensor::mean(int64_t dim, bool keepdim, std::optional<Dtype> dtype) const {
  return mean_impl(*this, {dim}, keepdim, dtype, "mean");
}
Tensor Tensor::nanmean(std::optional<IntArrayRef> dims, bool keepdim) const {
  EMBER_CHECK(is_floating_point(), "nanmean", "expected a floating point tensor, got ", dtype());
  const IntArrayRef d = dims.value_or(IntArrayRef());
  const Tensor counts = ember::logical_not(isnan()).sum(d, keepdim);
  return nansum(d, keepdim).div(counts);
}
Tensor Tensor::prod(std::optional<Dtype> dtype) const {
  return prod_recorded(*this, std::nullopt, false, dtype);
}
Tensor Tensor::prod(int64_t dim, bool keepdim, std::optional<Dtype> dtype) const {
  return prod_recorded(*this, dim, keepdim, dtype);
}
Tensor Tensor::amax(IntArrayRef dims, bool keepdim) const {
  check_nonempty(*this, dims, "amax");
  return extremum_recorded(*this, dims, keepdim, true, "AmaxBackward0");
}
Tensor Tensor::amin(IntArrayRef dims, bool keepdim) const {
  check_nonempty(*this, dims, "amin");
  return extremum_recorded(*this, dims, keepdim, false, "AminBackward0");
}
Tensor Tensor::max() const {
  EMBER_CHECK(numel() > 0, "max", "max(): Expected reduction dim to be specified for "
              "input.numel() == 0. Specify the reduction dim with the 'dim' argument.");
  return extremum_recorded(*this, {}, false, true, "MaxBackward1");
}
Tensor Tensor::min() const {
  EMBER_CHECK(numel() > 0, "min", "min(): Expected reduction dim to be specified for "
              "input.numel() == 0. Specify the reduction dim with the 'dim' argument.");
  return extremum_recorded(*this, {}, false, false, "MinBackward1");
}
Tensor Tensor::all() const { return all_dims(*this, {}, false); }
Tensor Tensor::all(int64_t dim, bool keepdim) const { return all_dims(*this, {dim}, keepdim); }
Tensor Tensor::any() const { return any_dims(*this, {}, false); }
Tensor Tensor::any(int64_t dim, bool keepdim) const { return any_dims(*this, {dim}, keepdim); }
Tensor Tensor::count_nonzero(std::optional<IntArrayRef> dims) const {
  return reduce<DtypeSet::All, true>("count_nonzero", ne(0), dims.value_or(IntArrayRef()), false,
                                     kInt64, SumReducer{});
}

Tensor Tensor::var(std::optional<IntArrayRef> dims, int64_t correction, bool keepdim) const {
  return std::get<0>(var_recorded(*this, dims, correction, keepdim, false, false, "var"));
}
Tensor Tensor::var(int64_t dim, int64_t correction, bool keepdim) const {
  return std::get<0>(var_recorded(*this, IntArrayRef({dim}), correction, keepdim, false, false, "var"));
}
Tensor Tensor::std(std::optional<IntArrayRef> dims, int64_t correction, bool keepdim) const {
  return std::get<0>(var_recorded(*this, dims, correction, keepdim, true, false, "std"));
}
Tensor Tensor::std(int64_t dim, int64_t correction, bool keepdim) const {
  return std::get<0>(var_recorded(*this, IntArrayRef({dim}), correction, keepdim, true, false, "std"));
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& t, std::optional<IntArrayRef> dims,
                                    int64_t correction, bool keepdim) {
  return var_recorded(t, dims, correction, keepdim, false, true, "var_mean");
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& t, std::optional<IntArrayRef> dims,
                                    int64_t correction, bool keepdim) {
  return var_recorded(t, dims, correction, keepdim, true, true, "std_mean");
}

std::tuple<Tensor, Tensor> aminmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  if (dim) check_nonempty(self, {*dim}, "aminmax");
  EMBER_CHECK(dim || self.numel() > 0, "aminmax", "cannot compute aminmax over an empty ",
              "dimension as the operation has no identity.");
  backend::cpu_only("aminmax", self);
  const DimVector dims = reduction_dims(dim ? IntArrayRef({*dim}) : IntArrayRef(), self.dim(),
                                        "aminmax");
  const DimVector flat = reduced_shape(self.sizes(), dims, false);
  Tensor lo = empty(flat, {.dtype = self.dtype()}), hi = empty(flat, {.dtype = self.dtype()});
  const int64_t M = lo.numel();
  dispatch(self.dtype(), "aminmax", [&]<class T>() {
    using A = MinMax<compute_t<T>>;
    const auto acc = std::make_unique<A[]>(size_t(M));
    run_reduction<A, A, T>(acc.get(), plan_layout(self, dims), MinMaxReducer{});
    T* l = lo.data_ptr<T>();
    T* h = hi.data_ptr<T>();
    for (int64_t m = 0; m < M; ++m) {
      l[m] = convert<T>(acc[m].lo);
      h[m] = convert<T>(acc[m].hi);
    }
  });
  if (!keepdim) return {lo, hi};
  const DimVector kept = reduced_shape(self.sizes(), dims, true);
  return {lo.view(kept), hi.view(kept)};
}

namespace {
Tensor vector_norm_impl(const Tensor& self, double p, IntArrayRef dims, bool keepdim) {
  EMBER_CHECK(self.is_floating_point(), "linalg.vector_norm", "expected a floating point ",
              "input, got ", self.dtype());
  if (std::isinf(p)) {
    if (self.numel() == 0) check_nonempty(self, dims, "linalg.vector_norm");
    return p > 0 ? reduce<DtypeSet::Floating, false>("norm", self, dims, keepdim, self.dtype(),
                                                     AbsMaxReducer{})
                 : reduce<DtypeSet::Floating, false>("norm", self, dims, keepdim, self.dtype(),
                                                     AbsMinReducer{});
  }
  if (p == 0) return self.ne(0).sum(dims, keepdim, self.dtype());
  return reduce<DtypeSet::Floating, false>("norm", self, dims, keepdim, self.dtype(),
                                           NormReducer{p});
}
}  // namespace

Tensor linalg_vector_norm(const Tensor& self, double p, IntArrayRef dims, bool keepdim) {
  return norm_recorded(self, p, dims, keepdim, "LinalgVectorNormBackward0");
}

Tensor Tensor::norm(Scalar p) const {
  return norm_recorded(*this, p.to_double(), {}, false, "NormBackward1");
}
Tensor Tensor::norm(Scalar p, IntArrayRef dims, bool keepdim) const {
  return norm_recorded(*this, p.to_double(), dims, keepdim, "NormBackward1");
}
Tensor Tensor::norm(Scalar p, int64_t dim, bool keepdim) const {
  return norm_recorded(*this, p.to_double(), {dim}, keepdim, "NormBackward1");
}

}  // namespace ember
