// The host side of the CUDA rearranging family: the kCUDA backend's flip, triangle, trace,
// searchsorted, one_hot and repeat_interleave entries. Each plans its launches
// (rearrange_plan.cpp, tested in every build with the emulated kernels) and queues them on the
// current stream of the operands' device; one_hot and repeat_interleave read their values'
// statistics back first (one sync each, as PyTorch's CUDA kernels), to raise the CPU's errors and
// size their results; unique sorts (sort.cu's kernel for the elements, a row network for
// unique along a dim), numbers the groups and reads their count back.
#include "backend/backend.h"
#include "backend/buffers.h"
#include "backend/cuda/rearrange_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

void flip(const Tensor& out, const Tensor& self, IntArrayRef dims) {
  const kernels::FlipLaunch l = plan_flip_launch(out, self, dims);
  launch_on(self.device(), "flip", &kernels::launch_flip, l);
}

void triangle(const Tensor& out, const Tensor& self, int64_t k, bool lower) {
  const kernels::TriangleLaunch l = plan_triangle_launch(out, self, k, lower);
  if (l.numel > 0) launch_on(self.device(), lower ? "tril" : "triu", &kernels::launch_triangle, l);
}

void trace(const Tensor& out, const Tensor& self) {
  launch_on(self.device(), "trace", &kernels::launch_trace, plan_trace_launch(out, self));
}

void searchsorted(const Tensor& out, const Tensor& boundaries, const Tensor& values,
                  const Tensor& sorter, bool right) {
  const kernels::SearchsortedLaunch l =
      plan_searchsorted_launch(out, boundaries, values, sorter, right);
  if (l.n > 0) launch_on(values.device(), "searchsorted", &kernels::launch_searchsorted, l);
}

Tensor one_hot(const Tensor& self, int64_t num_classes) {
  const char* op = "one_hot";
  OneHotWork w = plan_one_hot(self);
  launch_on(self.device(), op, &kernels::launch_int_stats, w.stats_launch);
  Tensor out = one_hot_result(w, self, read_int_stats(w.stats), num_classes);
  if (out.numel() > 0) launch_on(self.device(), op, &kernels::launch_one_hot, w.write);
  return out;
}

Tensor repeat_interleave(const Tensor& repeats) {
  const char* op = "repeat_interleave";
  if (repeats.numel() == 0) return backend::new_buffer({0}, kInt64, repeats.device(), op);
  RepeatWork w = plan_repeat_interleave(repeats);
  launch_on(repeats.device(), op, &kernels::launch_int_stats, w.stats_launch);
  launch_on(repeats.device(), op, &kernels::launch_scan, w.scan);
  Tensor out = repeat_interleave_result(w, repeats, read_int_stats(w.stats));
  if (out.numel() > 0) launch_on(repeats.device(), op, &kernels::launch_repeat, w.write);
  return out;
}

/// After the sort: marks the groups, scans the marks and reads the number of groups back.
int64_t count_groups(const UniqueWork& w, Device device) {
  launch_on(device, "unique", &kernels::launch_unique, w.mark);
  launch_on(device, "unique", &kernels::launch_scan, w.scan);
  return w.ids.select(0, w.mark.n - 1).cpu().item<int64_t>();
}

backend::UniqueElements unique(const Tensor& self, bool return_inverse, bool return_counts) {
  const char* op = "unique";
  const int64_t n = self.numel();
  const Device device = self.device();
  if (n == 0) {
    backend::UniqueElements r;
    r.values = backend::new_buffer({0}, self.dtype(), device, op);
    if (return_inverse) r.inverse = backend::new_buffer(self.sizes(), kInt64, device, op);
    if (return_counts) r.counts = backend::new_buffer({0}, kInt64, device, op);
    return r;
  }
  UniqueWork w = plan_unique(self);
  launch_on(device, op, &kernels::launch_sort, w.sort);
  const int64_t groups = count_groups(w, device);
  backend::UniqueElements r = unique_result(w, self, groups, return_inverse, return_counts);
  launch_on(device, op, &kernels::launch_unique, w.write);
  if (return_counts) launch_on(device, op, &kernels::launch_unique, w.count);
  return r;
}

backend::UniqueRows unique_rows(const Tensor& x) {
  const char* op = "unique";
  const Device device = x.device();
  if (x.size(0) == 0) {
    auto none = [&] { return backend::new_buffer({0}, kInt64, device, op); };
    return {.first = none(), .inverse = none(), .counts = none()};
  }
  UniqueWork w = plan_unique_rows(x);
  launch_on(device, op, &kernels::launch_unique, w.sort_rows);
  backend::UniqueRows r = unique_rows_result(w, x, count_groups(w, device));
  launch_on(device, op, &kernels::launch_unique, w.write);
  launch_on(device, op, &kernels::launch_unique, w.count);
  return r;
}

}  // namespace

void install_rearrange_kernels(backend::Backend& b) {
  b.rearrange.flip = &flip;
  b.rearrange.triangle = &triangle;
  b.rearrange.trace = &trace;
  b.rearrange.searchsorted = &searchsorted;
  b.rearrange.one_hot = &one_hot;
  b.rearrange.repeat_interleave = &repeat_interleave;
  b.rearrange.unique = &unique;
  b.rearrange.unique_rows = &unique_rows;
}

}  // namespace ember::cuda
