// CPU kernels of amax and amin (and any/all, over bools); NaN propagates, as in PyTorch.
// aminmax is reduce_aminmax.cpp.
#include <cmath>

#include "backend/cpu/reduce_engine.h"

namespace EMBER_CPU_NS {
namespace {

template <class R>
void extremum_kernel(const backend::ReduceCall& c) {
  reduce_with<DtypeSet::All, false>(c, R{});
}

}  // namespace

void add_extremum_kernels(backend::ReduceKernels& k) {
  k.amax = &extremum_kernel<MaxReducer>;
  k.amin = &extremum_kernel<MinReducer>;
}

}  // namespace EMBER_CPU_NS
