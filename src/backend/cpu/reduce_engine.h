// The CPU reduction engine (Note [Reduction layouts] in backend/cpu/reduce.cpp): the plan of an
// input's layout and the walk that reduces it with a reducer (backend/cpu/reduce.h), shared by
// the reduction kernel files (reduce_sum.cpp, reduce_prod.cpp, reduce_extremum.cpp,
// reduce_aminmax.cpp, reduce_norm.cpp, reduce.cpp), each of which adds its entries of
// backend::ReduceKernels.
#pragma once

#include <limits>
#include <optional>

#include "backend/cpu/level.h"
#include "backend/cpu/reduce.h"
#include "backend/reduce_kernels.h"
#include "core/dispatch.h"

namespace EMBER_CPU_NS {

void add_sum_kernels(backend::ReduceKernels& k);        // sum, nansum, mean
void add_prod_kernels(backend::ReduceKernels& k);       // prod
void add_extremum_kernels(backend::ReduceKernels& k);   // amax, amin
void add_aminmax_kernels(backend::ReduceKernels& k);    // aminmax
void add_norm_kernels(backend::ReduceKernels& k);       // norm
void add_reduce_index_kernels(backend::ReduceKernels& k);  // max_dim, min_dim

// ── reducers shared by several kernels ─────────────────────────────────
struct SumReducer {
  template <class A> A init() const { return A(0); }
  template <class V> V pre(V x) const { return x; }
  template <class V> V combine(V a, V b) const { return a + b; }
  template <class A> A finish(A a) const { return a; }
};

struct MaxReducer {
  template <class A> A init() const {
    if constexpr (std::is_floating_point_v<A>) return -std::numeric_limits<A>::infinity();
    else return std::numeric_limits<A>::lowest();
  }
  template <class V> V pre(V x) const { return x; }
  template <class V> V combine(V a, V b) const { return vmax(a, b); }
  template <class A> A finish(A a) const { return a; }
};

struct MinReducer {
  template <class A> A init() const {
    if constexpr (std::is_floating_point_v<A>) return std::numeric_limits<A>::infinity();
    else return std::numeric_limits<A>::max();
  }
  template <class V> V pre(V x) const { return x; }
  template <class V> V combine(V a, V b) const { return vmin(a, b); }
  template <class A> A finish(A a) const { return a; }
};

// ── the engine ──────────────────────────────────────────────────────────
struct Layout {
  Tensor x;          // permuted view: kept dims, then reduced dims (memory order)
  int64_t nkept;     // number of kept dims in x
  int64_t run = 1;   // contiguous innermost reduced elements
  int64_t nouter;    // reduced dims outside the run: x dims [nkept, nkept + nouter)
};

/// Permutes `self` to (kept dims, reduced dims in memory order) and finds its contiguous run.
Layout plan_layout(const Tensor& self, IntArrayRef dims);

// The single stride that walks dims [0, n) in order, if they collapse into one (size-1 dims
// are skipped).
std::optional<int64_t> collapse(const int64_t* sizes, const int64_t* strides, int64_t n);

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
      reduce_rows<Out, Acc, In>(out, base, K, M, *red, r);
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
      Acc acc = reduce_run<Acc>(p + offset_of(o0, l.nkept, l.nouter), L, r);
      for (int64_t o = o0 + 1; o < o0 + n; ++o)  // n > 1 only for runs of a few elements
        acc = r.combine(acc, reduce_run<Acc>(p + offset_of(o, l.nkept, l.nouter), L, r));
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
                     const Acc acc = outer == 1 ? reduce_run<Acc>(p, L, r)
                                                : tree_reduce<Acc>(0, outer, leaf, 1, runs(p), r);
                     out[m] = convert<Out>(r.finish(acc));
                   }
                 });
    return;
  }
  // Few outputs, much work: each output's tree is cut into subtrees for the threads.
  for (int64_t m = 0; m < M; ++m) {
    const In* p = base + offset_of(m, 0, l.nkept);
    const Acc acc = outer == 1 ? reduce_run_parallel<Acc>(p, L, r)
                               : tree_reduce_parallel<Acc>(outer, leaf, 1, L, runs(p), r);
    out[m] = convert<Out>(r.finish(acc));
  }
}

// Accumulation type: float for half types, int64 for integer sums, the type itself otherwise.
template <class T, bool WidenInts>
using acc_t = std::conditional_t<WidenInts && std::is_integral_v<T>, int64_t, compute_t<T>>;

// out = the reduction of call.in by `r`: integer inputs accumulate in int64 when `WidenInts`.
// The front end has made out's dtype the input's, or int64 for the widened integer sums (all/any
// reduce bools to bool), so only those pairs are instantiated.
template <DtypeSet S, bool WidenInts, class R>
void reduce_with(const backend::ReduceCall& c, const R& r) {
  const Layout layout = plan_layout(c.in, c.dims);
  const Dtype out_dtype = c.out.dtype();
  dispatch<S>(c.in.dtype(), c.op, [&]<class In>() {
    using Acc = acc_t<In, WidenInts>;
    dispatch(out_dtype, c.op, [&]<class Out>() {
      if constexpr (std::is_same_v<Out, In> ||
                    (std::is_integral_v<In> && std::is_same_v<Out, Acc>)) {
        run_reduction<Out, Acc, In>(c.out.data_ptr<Out>(), layout, r);
      } else {
        fail(c.op, "unsupported output dtype ", out_dtype, " for input dtype ", c.in.dtype());
      }
    });
  });
}

}  // namespace EMBER_CPU_NS
