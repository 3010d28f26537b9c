// CPU kernel of prod: pairwise products; integers accumulate in int64.
#include <cmath>

#include "backend/cpu/reduce_engine.h"

namespace EMBER_CPU_NS {
namespace {

struct ProdReducer {
  template <class A> A init() const { return A(1); }
  template <class V> V pre(V x) const { return x; }
  template <class V> V combine(V a, V b) const { return a * b; }
  template <class A> A finish(A a) const { return a; }
};
void prod_kernel(const backend::ReduceCall& c) {
  reduce_with<DtypeSet::All, true>(c, ProdReducer{});
}

}  // namespace

void add_prod_kernels(backend::ReduceKernels& k) { k.prod = &prod_kernel; }

}  // namespace EMBER_CPU_NS
