// See softmax_plan.h.
#include "backend/cuda/softmax_plan.h"

#include <algorithm>

#include "backend/cuda/reduce_plan.h"

namespace ember::cuda {

kernels::SoftmaxLaunch plan_softmax_launch(const char* op, const Tensor& y, const Tensor& x,
                                           int64_t dim, bool log) {
  EMBER_CHECK(x.dtype() == kFloat32 || x.dtype() == kFloat64, op, "the cuda backend has no ",
              dtype_name(x.dtype()), " kernel yet (", op, " on ", x.device(),
              " computes in float32 or float64)");
  EMBER_CHECK(x.is_contiguous() && y.is_contiguous() && x.sizes() == y.sizes() &&
                  x.dtype() == y.dtype(), op, "expected contiguous x and y of one shape and "
              "dtype, got ", x.sizes(), " ", x.dtype(), " and ", y.sizes(), " ", y.dtype());
  kernels::SoftmaxLaunch l{};
  l.type = x.dtype() == kFloat32 ? kernels::Type::float32 : kernels::Type::float64;
  l.log = log;
  l.outer = 1;
  l.inner = 1;
  l.dim = x.dim() == 0 ? 1 : x.sizes()[dim];
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (d < dim) l.outer *= x.sizes()[d];
    if (d > dim) l.inner *= x.sizes()[d];
  }
  l.lines = l.dim == 0 ? 0 : l.outer * l.inner;  // an empty dim has nothing to write
  l.x = static_cast<const char*>(x.data_ptr());
  l.y = static_cast<char*>(y.data_ptr());
  l.threads = block_threads(l.dim, kSoftmaxThreads);
  l.blocks = uint32_t(std::clamp<int64_t>(l.lines, 1, 65536));
  return l;
}

}  // namespace ember::cuda
