// The host side of the CUDA scans: the kCUDA backend's cumsum and cumprod entries. Each plans its
// launch (scan_plan.cpp, tested in every build with the emulated kernel) and queues scan.cu's
// kernel on the current stream of x's device.
#include "backend/backend.h"
#include "backend/cuda/runtime.h"
#include "backend/cuda/scan_plan.h"

namespace ember::cuda {
namespace {

template <bool Prod>
void scan(const char* op, const Tensor& y, const Tensor& x, int64_t dim) {
  const kernels::ScanLaunch l = plan_scan_launch(op, y, x, dim, Prod);
  if (l.lines == 0) return;
  launch_on(x.device(), op, &kernels::launch_scan, l);
}

}  // namespace

void install_scan_kernels(backend::Backend& b) {
  b.scan.cumsum = &scan<false>;
  b.scan.cumprod = &scan<true>;
}

}  // namespace ember::cuda
