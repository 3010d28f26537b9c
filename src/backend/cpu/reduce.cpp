// CPU kernels of the reductions (src/ops/reduce.cpp): the layout planning of the engine
// (backend/cpu/reduce_engine.h), var/std, and the family's table. The other kernels are in
// reduce_sum.cpp, reduce_prod.cpp, reduce_extremum.cpp, reduce_aminmax.cpp, reduce_norm.cpp,
// reduce_index.cpp.
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
#include <cmath>
#include <limits>
#include <memory>

#include "backend/cpu/kernels.h"
#include "backend/cpu/reduce_engine.h"

namespace EMBER_CPU_NS {

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

namespace {

// Welford-style moments (count, mean, M2) for var/std and their _mean variants: blocks are
// reduced two-pass in double and merged with Chan's formula (backend/cpu/reduce.h).
struct MomentsReducer : MomentsMerge {
  template <class A> A init() const { return {}; }
  template <class A> A finish(A a) const { return a; }
  template <class A, class In> A lift(In x) const {
    return {1, double(convert<compute_t<In>>(x)), 0};
  }
  template <class In> Moments leaf(const In* p, int64_t n) const {
    return moments_leaf(p, n);
  }
  template <class In>
  void rows(Moments* out, const In* x, int64_t K, int64_t J, int64_t row_stride) const {
    moments_rows(out, x, K, J, row_stride);
  }
};
void var_kernel(const backend::MomentsCall& c) {
  const int64_t M = c.var.numel();
  dispatch<DtypeSet::Floating>(c.in.dtype(), c.op, [&]<class T>() {
    const auto moments = std::make_unique<Moments[]>(size_t(M));
    run_reduction<Moments, Moments, T>(moments.get(), plan_layout(c.in, c.dims),
                                       MomentsReducer{});
    T* v = c.var.data_ptr<T>();
    T* mu = c.mean.defined() ? c.mean.data_ptr<T>() : nullptr;
    for (int64_t m = 0; m < M; ++m) {
      const Moments& s = moments[m];
      // PyTorch divides by max(0, n - correction): n <= correction gives inf (or nan for 0/0).
      const double r = s.m2 / double(std::max<double>(0, s.n - double(c.correction)));
      v[m] = convert<T>(c.take_sqrt ? std::sqrt(r) : r);
      if (mu) mu[m] = convert<T>(s.n == 0 ? std::numeric_limits<double>::quiet_NaN() : s.mean);
    }
  });
}
}  // namespace

void add_reduce_kernels(backend::Backend& b) {
  add_sum_kernels(b.reduce);
  add_prod_kernels(b.reduce);
  add_extremum_kernels(b.reduce);
  add_aminmax_kernels(b.reduce);
  add_norm_kernels(b.reduce);
  b.reduce.var = &var_kernel;
  add_reduce_index_kernels(b.reduce);
}

}  // namespace EMBER_CPU_NS
