// CPU kernels of amax and amin (and any/all, over bools); NaN propagates, as in PyTorch.
// aminmax is reduce_aminmax.cpp.
#include <cmath>

#include "backend/cpu/reduce_engine.h"

namespace EMBER_CPU_NS {
namespace {

template <backend::ReduceFn backend::ReduceKernels::*Kernel, class R>
void extremum_kernel(const backend::ReduceCall& c) {
  reduce_with<Kernel, DtypeSet::All, false>(c, R{});
}

}  // namespace

void add_extremum_kernels(backend::ReduceKernels& k) {
  k.amax = &extremum_kernel<&backend::ReduceKernels::amax, MaxReducer>;
  k.amin = &extremum_kernel<&backend::ReduceKernels::amin, MinReducer>;
}

}  // namespace EMBER_CPU_NS
