// CPU kernel of the vector norms: (sum |x|^p)^(1/p) with exact fast paths for p = 1 and 2, and
// max|x| / min|x| for p = +inf / -inf.
#include <cmath>

#include "backend/cpu/reduce_engine.h"

namespace EMBER_CPU_NS {
namespace {

// |x|^p summed; finish takes the p-th root. p = 1 and 2 get exact fast paths.
struct NormReducer {
  double p;
  template <class A> A init() const { return A(0); }
  template <class V> V pre(V x) const {
    if (p == 2) return x * x;
    if (p == 1) return abs_of(x);
    return pow_of(abs_of(x), p);
  }
  template <class T> static Vec<T> abs_of(Vec<T> x) { return abs(x); }
  template <class T> static T abs_of(T x) { return x < 0 ? -x : x; }
  template <class T> static Vec<T> pow_of(Vec<T> x, double e) { return pow(x, Vec<T>(T(e))); }
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


void norm_kernel(const backend::ReduceCall& c) {
  if (std::isinf(c.arg)) {
    if (c.arg > 0) reduce_with<DtypeSet::Floating, false>(c, AbsMaxReducer{});
    else reduce_with<DtypeSet::Floating, false>(c, AbsMinReducer{});
    return;
  }
  reduce_with<DtypeSet::Floating, false>(c, NormReducer{c.arg});
}

}  // namespace

void add_norm_kernels(backend::ReduceKernels& k) { k.norm = &norm_kernel; }

}  // namespace EMBER_CPU_NS
