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

namespace {

// The write launch of w as a compaction of self's elements (contiguous, the mask's shape).
kernels::NonzeroLaunch plan_values(const char* op, const NonzeroWork& w, const Tensor& self,
                                   kernels::NonzeroLaunch::Phase phase) {
  const int64_t item = self.element_size();
  EMBER_CHECK(self.is_contiguous() && self.numel() == w.count.n &&
                  (item == 1 || item == 2 || item == 4 || item == 8),
              op, "expected a contiguous self of the mask's ", w.count.n,
              " elements and 1, 2, 4 or 8 bytes each, got ", self.sizes(), " ", self.dtype());
  kernels::NonzeroLaunch l = w.write;
  l.phase = phase;
  l.values = static_cast<char*>(self.data_ptr());
  l.item = item;
  return l;
}

}  // namespace

kernels::NonzeroLaunch plan_masked_select(const NonzeroWork& w, const Tensor& self, int64_t total,
                                          Tensor& out) {
  const char* op = "masked_select";
  EMBER_CHECK(total >= 0 && total <= w.count.n, op, "a count of ", total, " ones among ",
              w.count.n);
  kernels::NonzeroLaunch l =
      plan_values(op, w, self, kernels::NonzeroLaunch::Phase::select);
  out = backend::new_buffer({total}, self.dtype(), self.device(), op);
  l.selected = static_cast<char*>(out.data_ptr());
  return l;
}

kernels::NonzeroLaunch plan_masked_scatter(const NonzeroWork& w, const Tensor& self,
                                           const Tensor& source, int64_t total) {
  const char* op = "masked_scatter_";
  EMBER_CHECK(total <= source.numel(), op, "Number of elements of source (", source.numel(),
              ") < number of ones in mask (", total, ")");
  EMBER_CHECK(source.is_contiguous() && source.dtype() == self.dtype(), op,
              "expected a contiguous source of self's dtype ", self.dtype(), ", got ",
              source.dtype());
  kernels::NonzeroLaunch l =
      plan_values(op, w, self, kernels::NonzeroLaunch::Phase::scatter);
  l.selected = static_cast<char*>(source.data_ptr());
  return l;
}

}  // namespace ember::cuda
