// CPU kernels of the reductions that return positions (src/ops/reduce_index.cpp): max/min along
// the rows of a contiguous (M, D) matrix. PyTorch's rules: the first occurrence wins ties; a NaN
// counts as the maximum (and the minimum) and ends the scan.
#include "backend/cpu/reduce_engine.h"
#include "core/convert.h"
#include "core/dispatch.h"
#include "core/parallel.h"

namespace EMBER_CPU_NS {
namespace {

template <bool Max>
void arg_reduce_kernel(const char* op, const Tensor& values, const Tensor& indices,
                       const Tensor& rows) {
  const int64_t D = rows.size(-1), M = rows.numel() / D;
  dispatch(rows.dtype(), op, [&]<class T>() {
    const T* x = rows.data_ptr<T>();
    T* v = values.data_ptr<T>();
    int64_t* idx = indices.data_ptr<int64_t>();
    parallel_for(0, M, std::max<int64_t>(1, kGrainSize / D), [&](int64_t m0, int64_t m1) {
      for (int64_t m = m0; m < m1; ++m) {
        const T* row = x + m * D;
        int64_t best = 0;
        auto bv = convert<compute_t<T>>(row[0]);
        for (int64_t i = 1; i < D && bv == bv; ++i) {
          const auto c = convert<compute_t<T>>(row[i]);
          if (c != c || (Max ? c > bv : c < bv)) {  // a NaN wins and ends the scan
            bv = c;
            best = i;
          }
        }
        v[m] = row[best];
        idx[m] = best;
      }
    });
  });
}

}  // namespace

void add_reduce_index_kernels(backend::ReduceKernels& k) {
  k.max_dim = &arg_reduce_kernel<true>;
  k.min_dim = &arg_reduce_kernel<false>;
}

}  // namespace EMBER_CPU_NS
