// CPU kernels of the scans (src/ops/scan.cpp): cumsum and cumprod along a dim, one line per
// task; floats accumulate in double (PyTorch's CPU acc_type) and round once per output.
#include <type_traits>

#include "backend/cpu/kernels.h"
#include "backend/cpu/lines.h"
#include "core/convert.h"
#include "core/dispatch.h"

namespace ember::cpu {
namespace {

template <bool Prod>
void scan_kernel(const char* op, const Tensor& y, const Tensor& x, int64_t dim) {
  const Lines s = lines_of(x, dim);
  dispatch<DtypeSet::Numeric>(x.dtype(), op, [&]<class T>() {
    using Acc = std::conditional_t<std::is_floating_point_v<compute_t<T>>, double, T>;
    const T* xp = x.data_ptr<T>();
    T* yp = y.data_ptr<T>();
    for_lines(s.count(), s.n, [&](int64_t a, int64_t b) {
      for (int64_t l = a; l < b; ++l) {
        const int64_t base = s.base(l, s.n);
        Acc acc = Prod ? Acc(1) : Acc(0);
        for (int64_t d = 0; d < s.n; ++d) {
          const Acc v = Acc(compute_t<T>(xp[base + d * s.inner]));
          acc = Prod ? Acc(acc * v) : Acc(acc + v);
          yp[base + d * s.inner] = T(compute_t<T>(acc));
        }
      }
    });
  });
}

}  // namespace

void add_scan_kernels(backend::Backend& b) {
  b.scan.cumsum = &scan_kernel<false>;
  b.scan.cumprod = &scan_kernel<true>;
}

}  // namespace ember::cpu
