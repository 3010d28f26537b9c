// See scan_plan.h.
#include "backend/cuda/scan_plan.h"

#include "backend/cuda/copy_plan.h"
#include "backend/cuda/elementwise_plan.h"

namespace ember::cuda {

kernels::ScanLaunch plan_scan_launch(const char* op, const Tensor& y, const Tensor& x, int64_t dim,
                                     bool prod) {
  EMBER_CHECK(x.dtype() != kBool, op, "the cuda backend has no bool kernel yet");
  EMBER_CHECK(
      x.is_contiguous() && y.is_contiguous() && x.sizes() == y.sizes() && x.dtype() == y.dtype(),
      op, "expected contiguous x and y of one shape and dtype, got ", x.sizes(), " ", x.dtype(),
      " and ", y.sizes(), " ", y.dtype());
  kernels::ScanLaunch l{};
  l.type = storage_type(x.dtype(), op);
  l.prod = prod;
  l.n = x.dim() == 0 ? 1 : x.size(dim);
  l.inner = 1;
  for (int64_t d = dim + 1; d < x.dim(); ++d) l.inner *= x.size(d);
  l.lines = l.n == 0 ? 0 : x.numel() / l.n;
  l.x = static_cast<const char*>(x.data_ptr());
  l.y = static_cast<char*>(y.data_ptr());
  l.threads = kElementwiseThreads;
  l.blocks = grid_blocks(l.lines);
  return l;
}

}  // namespace ember::cuda
