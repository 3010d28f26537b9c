// The host side of the CUDA nonzero: the kCUDA backend's nonzero entry. It plans the work
// (nonzero_plan.cpp, tested in every build with the emulated kernels), queues the count and the
// scan of the counts on the current stream, reads the total back (the one sync), then queues the
// write into the result it allocates (Note [CUDA nonzero]).
#include "backend/backend.h"
#include "backend/buffers.h"
#include "backend/cuda/nonzero_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

Tensor nonzero(const Tensor& x) {
  const char* op = "nonzero";
  const Device device = x.device();
  if (x.numel() == 0) return backend::new_buffer({0, x.dim()}, kInt64, device, op);
  NonzeroWork w = plan_nonzero(x);
  launch_on(device, op, &kernels::launch_nonzero, w.count);
  launch_on(device, op, &kernels::launch_scan, w.scan);
  const int64_t total = w.ends.select(0, w.ends.numel() - 1).cpu().item<int64_t>();
  Tensor out = nonzero_result(w, total, device);
  if (total > 0) launch_on(device, op, &kernels::launch_nonzero, w.write);
  return out;
}

}  // namespace

void install_nonzero_kernels(backend::Backend& b) { b.gather.nonzero = &nonzero; }

}  // namespace ember::cuda
