// CPU kernels of sum, nansum and mean (and count_nonzero, a sum of bools): pairwise sums
// (Note [Deterministic parallel sums] in backend/cpu/reduce.h); integers accumulate in int64.
#include <cmath>

#include "backend/cpu/reduce_engine.h"

namespace EMBER_CPU_NS {
namespace {

template <class T> Vec<T> nan_to_zero(Vec<T> x) {
  return select<T>(isnan_mask(x), Vec<T>(T(0)), x);
}
template <class T> T nan_to_zero(T x) { return x != x ? T(0) : x; }

struct NanSumReducer : SumReducer {
  template <class V> V pre(V x) const { return nan_to_zero(x); }
};

struct MeanReducer : SumReducer {
  double divisor;
  template <class A> A finish(A a) const { return a / A(divisor); }
};
template <DtypeSet S, bool WidenInts, class R>
void reduce_kernel(const backend::ReduceCall& c) {
  reduce_with<S, WidenInts>(c, R{});
}

void mean_kernel(const backend::ReduceCall& c) {
  reduce_with<DtypeSet::Floating, false>(c, MeanReducer{{}, c.arg});
}

}  // namespace

void add_sum_kernels(backend::ReduceKernels& k) {
  k.sum = &reduce_kernel<DtypeSet::All, true, SumReducer>;
  k.nansum = &reduce_kernel<DtypeSet::Floating, false, NanSumReducer>;
  k.mean = &mean_kernel;
}

}  // namespace EMBER_CPU_NS
