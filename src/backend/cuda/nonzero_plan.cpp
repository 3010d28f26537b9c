// See nonzero_plan.h.
#include "backend/cuda/nonzero_plan.h"

#include <algorithm>

#include "backend/buffers.h"
#include "backend/cuda/copy_plan.h"
#include "backend/cuda/scan_plan.h"

namespace ember::cuda {

NonzeroWork plan_nonzero(const Tensor& x) {
  const char* op = "nonzero";
  const int64_t n = x.numel();
  EMBER_CHECK(x.is_contiguous() && n >= 1 && x.dim() <= kernels::kMaxDims, op,
              "the cuda kernel expects a contiguous input of 1 or more elements and at most ",
              kernels::kMaxDims, " dims, got sizes ", x.sizes(), " and strides ", x.strides());
  NonzeroWork w{};
  kernels::NonzeroLaunch& c = w.count;
  c.phase = kernels::NonzeroLaunch::Phase::count;
  c.type = storage_type(x.dtype(), op);
  c.ndim = int32_t(x.dim());
  c.n = n;
  for (int64_t d = 0; d < x.dim(); ++d) c.sizes[d] = x.size(d);
  c.x = static_cast<const char*>(x.data_ptr());
  c.threads = 256;
  c.blocks = uint32_t(std::clamp<int64_t>(
      (n + 256 * kNonzeroPerThread - 1) / (256 * kNonzeroPerThread), 1, kNonzeroMaxBlocks));
  const int64_t grid = int64_t(c.blocks) * c.threads;
  c.per_thread = (n + grid - 1) / grid;
  w.counts = backend::new_buffer({grid}, kInt64, x.device(), op);
  w.ends = backend::new_buffer({grid}, kInt64, x.device(), op);
  c.counts = w.counts.data_ptr<int64_t>();
  c.ends = w.ends.data_ptr<int64_t>();
  w.scan = plan_scan_launch(op, w.ends, w.counts, 0, /*prod=*/false);
  w.write = c;
  w.write.phase = kernels::NonzeroLaunch::Phase::write;
  return w;
}

Tensor nonzero_result(NonzeroWork& w, int64_t total, Device device) {
  EMBER_CHECK(total >= 0 && total <= w.count.n, "nonzero", "a count of ", total,
              " nonzero elements among ", w.count.n);
  Tensor out = backend::new_buffer({total, int64_t(w.count.ndim)}, kInt64, device, "nonzero");
  w.write.out = out.data_ptr<int64_t>();
  return out;
}

}  // namespace ember::cuda
