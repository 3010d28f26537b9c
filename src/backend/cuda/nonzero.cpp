// The host side of the CUDA nonzero and of masked_select/masked_scatter, its compactions of
// values: the kCUDA backend's nonzero, masked_select and masked_scatter entries. Each plans the
// work (nonzero_plan.cpp, tested in every build with the emulated kernels), queues the count and
// the scan of the counts on the current stream, reads the total back (the one sync, as
// PyTorch's), then queues the write (Note [CUDA nonzero]).
#include <utility>

#include "backend/backend.h"
#include "backend/buffers.h"
#include "backend/cuda/nonzero_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

// Counts x's nonzero elements (count and scan queued, the total read back): the work for the
// write, and the total.
std::pair<NonzeroWork, int64_t> count(const char* op, const Tensor& x) {
  NonzeroWork w = plan_nonzero(x);
  launch_on(x.device(), op, &kernels::launch_nonzero, w.count);
  launch_on(x.device(), op, &kernels::launch_scan, w.scan);
  const int64_t total = w.ends.select(0, w.ends.numel() - 1).cpu().item<int64_t>();
  return {std::move(w), total};
}

Tensor nonzero(const Tensor& x) {
  const char* op = "nonzero";
  const Device device = x.device();
  if (x.numel() == 0) return backend::new_buffer({0, x.dim()}, kInt64, device, op);
  auto [w, total] = count(op, x);
  Tensor out = nonzero_result(w, total, device);
  if (total > 0) launch_on(device, op, &kernels::launch_nonzero, w.write);
  return out;
}

Tensor masked_select(const Tensor& self, const Tensor& mask) {
  const char* op = "masked_select";
  if (mask.numel() == 0) return backend::new_buffer({0}, self.dtype(), self.device(), op);
  const auto [w, total] = count(op, mask);
  Tensor out;
  const kernels::NonzeroLaunch l = plan_masked_select(w, self, total, out);
  if (total > 0) launch_on(self.device(), op, &kernels::launch_nonzero, l);
  return out;
}

void masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  const char* op = "masked_scatter_";
  if (mask.numel() == 0) return;
  const auto [w, total] = count(op, mask);
  const kernels::NonzeroLaunch l = plan_masked_scatter(w, self, source, total);
  if (total > 0) launch_on(self.device(), op, &kernels::launch_nonzero, l);
}

}  // namespace

void install_nonzero_kernels(backend::Backend& b) {
  b.gather.nonzero = &nonzero;
  b.gather.masked_select = &masked_select;
  b.gather.masked_scatter = &masked_scatter;
}

}  // namespace ember::cuda
