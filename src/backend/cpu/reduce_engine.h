// The CPU reduction engine (Note [Reduction layouts] in backend/cpu/reduce.cpp): the plan of an
// input's layout and the walk that reduces it with a reducer (backend/cpu/reduce.h), shared by
// the reduction kernel files (reduce_sum.cpp, reduce_prod.cpp, reduce_extremum.cpp,
// reduce_aminmax.cpp, reduce_norm.cpp, reduce.cpp), each of which adds its entries of
// backend::ReduceKernels. The walk itself is compiled once, in reduce_walk.cpp.
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

// Note [One reduction walk]
// A reduction's walk (which layout, the outputs in parallel, the pairwise tree over row blocks,
// the split of a tree into subtrees for the threads and their combination) is compiled once, in
// reduce_walk.cpp, for all dtypes and reducers, over byte pointers and accumulators it only
// copies. It reaches the reducer through a table of typed entries (ReduceFns), each of which does
// a whole piece of work: a chunk of outputs that are one run each, one output's (sub)tree over its
// runs or over its elements, a row block; so the reducer stays inlined where the elements are
// read and the walk costs one indirect call per piece. Before, every
// dtype x reducer instantiated the walk and inlined the recursive row-block walk several levels
// deep: more than half of each reduce_*.cpp's object code and compile time.

/// One reduction in flight: what the typed entries need besides their arguments.
struct ReduceJob {
  const Layout* l;
  const char* base;  // l->x's first element
  int64_t itemsize;  // of the input
  void* out;         // M outputs (Out, contiguous)
  const void* reducer;
};

/// The typed entries of one (Out, Acc, In, reducer); accumulators are passed as untyped
/// pointers to acc_size bytes.
struct ReduceFns {
  size_t acc_size;
  /// out[m] = finish(reduce_run(output m's run)) for m in [m0, m1), when each output is one run.
  void (*outputs)(const ReduceJob& j, int64_t m0, int64_t m1);
  /// *acc = the pairwise tree (leaves of `leaf` runs, combined in order) over runs o0 .. o0 + n - 1
  /// (outer-reduced index) of the output at p: a subtree of Note [Deterministic parallel sums].
  void (*runs)(const ReduceJob& j, const char* p, int64_t o0, int64_t n, int64_t leaf, void* acc);
  /// *acc = reduce_run's subtree over elements [b, b + n) of the run at p.
  void (*elements)(const ReduceJob& j, const char* p, int64_t b, int64_t n, void* acc);
  /// a = combine(a, b).
  void (*combine)(const ReduceJob& j, void* a, const void* b);
  /// out[m] = finish(acc).
  void (*store)(const ReduceJob& j, int64_t m, const void* acc);
  /// Rows layout: the reducer's own column reduction (Moments), or null for the walk's blocks.
  void (*rows)(const ReduceJob& j, const char* x, int64_t K, int64_t J, int64_t row_stride);
  /// dst[0, w) = init, then accumulate n rows of w values, `stride` bytes apart, from x.
  void (*row_block)(const ReduceJob& j, void* dst, const char* x, int64_t n, int64_t stride,
                    int64_t w);
  /// a[0, w) = combine(a, b).
  void (*row_combine)(const ReduceJob& j, void* a, const void* b, int64_t w);
  /// out[j0 + i] = finish(acc[i]) for i < w.
  void (*row_store)(const ReduceJob& j, const void* acc, int64_t j0, int64_t w);
};

/// The largest accumulator the walk holds (Moments: 24 bytes).
inline constexpr size_t kMaxAccBytes = 32;

/// out (contiguous, M elements) = reduce over x's reduced dims, per Note [Reduction layouts]
/// (reduce_walk.cpp).
void walk_reduction(const ReduceFns& fns, void* out, const Layout& l, const void* reducer);

/// The offset in elements of x's element `index` over dims [first, first + count), row-major.
inline int64_t offset_of(const Tensor& x, int64_t index, int64_t first, int64_t count) {
  const int64_t* sizes = x.sizes().data();
  const int64_t* strides = x.strides().data();
  int64_t off = 0;
  for (int64_t d = first + count - 1; d >= first; --d) {
    off += (index % sizes[d]) * strides[d];
    index /= sizes[d];
  }
  return off;
}

/// The typed entries of ReduceFns for one (Out, Acc, In, R).
template <class Out, class Acc, class In, class R>
struct TypedReduce {
  static_assert(sizeof(Acc) <= kMaxAccBytes && std::is_trivially_copyable_v<Acc>);
  static const R& red(const ReduceJob& j) { return *static_cast<const R*>(j.reducer); }
  static const In* in(const char* p) { return reinterpret_cast<const In*>(p); }

  static void outputs(const ReduceJob& j, int64_t m0, int64_t m1) {
    const R& r = red(j);
    const Tensor& x = j.l->x;
    const int64_t L = j.l->run, nkept = j.l->nkept;
    const In* base = in(j.base);
    Out* out = static_cast<Out*>(j.out);
    for (int64_t m = m0; m < m1; ++m)
      out[m] = convert<Out>(r.finish(reduce_run<Acc>(base + offset_of(x, m, 0, nkept), L, r)));
  }
  static void runs(const ReduceJob& j, const char* p, int64_t o0, int64_t n, int64_t leaf,
                   void* acc) {
    const R& r = red(j);
    const Layout& l = *j.l;
    auto run = [&](int64_t o) {
      return reduce_run<Acc>(in(p) + offset_of(l.x, o, l.nkept, l.nouter), l.run, r);
    };
    auto group = [&](int64_t g0, int64_t count) {
      Acc a = run(g0);
      for (int64_t o = g0 + 1; o < g0 + count; ++o) a = r.combine(a, run(o));
      return a;
    };
    *static_cast<Acc*>(acc) = tree_reduce<Acc>(o0, n, leaf, 1, group, r);
  }
  static void elements(const ReduceJob& j, const char* p, int64_t b, int64_t n, void* acc) {
    const R& r = red(j);
    *static_cast<Acc*>(acc) = tree_reduce<Acc>(b, n, kRunLeaf, 64, [&](int64_t b0, int64_t c) {
      return reduce_leaf<Acc>(in(p) + b0, c, r);
    }, r);
  }
  static void combine(const ReduceJob& j, void* a, const void* b) {
    Acc* x = static_cast<Acc*>(a);
    *x = red(j).combine(*x, *static_cast<const Acc*>(b));
  }
  static void store(const ReduceJob& j, int64_t m, const void* acc) {
    static_cast<Out*>(j.out)[m] = convert<Out>(red(j).finish(*static_cast<const Acc*>(acc)));
  }
  static void rows(const ReduceJob& j, const char* x, int64_t K, int64_t J, int64_t row_stride) {
    red(j).rows(static_cast<Out*>(j.out), in(x), K, J, row_stride);
  }
  static void row_block(const ReduceJob& j, void* dst, const char* x, int64_t n, int64_t stride,
                        int64_t w) {
    const R& r = red(j);
    Acc* d = static_cast<Acc*>(dst);
    std::fill(d, d + w, r.template init<Acc>());
    for (int64_t k = 0; k < n; ++k) accumulate_row(d, in(x + k * stride), w, r);
  }
  static void row_combine(const ReduceJob& j, void* a, const void* b, int64_t w) {
    combine_row(static_cast<Acc*>(a), static_cast<const Acc*>(b), w, red(j));
  }
  static void row_store(const ReduceJob& j, const void* acc, int64_t j0, int64_t w) {
    const R& r = red(j);
    const Acc* a = static_cast<const Acc*>(acc);
    Out* out = static_cast<Out*>(j.out) + j0;
    for (int64_t i = 0; i < w; ++i) out[i] = convert<Out>(r.finish(a[i]));
  }

  static constexpr auto own_rows() {
    if constexpr (requires(const R& r, Out* o, const In* x) { r.rows(o, x, 0, 0, 0); })
      return &rows;
    else
      return decltype(&rows)(nullptr);
  }
  static constexpr ReduceFns fns{sizeof(Acc), &outputs,   &runs,        &elements,
                                 &combine,    &store,     own_rows(),   &row_block,
                                 &row_combine, &row_store};
};

// out (contiguous, M elements) = reduce over x's reduced dims, per Note [Reduction layouts].
template <class Out, class Acc, class In, class R>
void run_reduction(Out* out, const Layout& l, const R& r) {
  walk_reduction(TypedReduce<Out, Acc, In, R>::fns, out, l, &r);
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
