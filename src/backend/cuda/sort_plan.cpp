// See sort_plan.h.
#include "backend/cuda/sort_plan.h"

#include <algorithm>

#include "backend/cuda/copy_plan.h"
#include "backend/cuda/reduce_plan.h"

namespace ember::cuda {

kernels::SortLaunch plan_sort_launch(const Tensor& values, const Tensor& indices,
                                     const Tensor& self, int64_t dim, bool descending) {
  const char* op = "sort";
  EMBER_CHECK(self.dtype() != kBool, op, "the cuda backend has no bool kernel yet");
  EMBER_CHECK(self.is_contiguous() && values.is_contiguous() && indices.is_contiguous() &&
                  values.sizes() == self.sizes() && indices.sizes() == self.sizes() &&
                  values.dtype() == self.dtype() && indices.dtype() == kInt64,
              op, "expected contiguous self, values and int64 indices of one shape, got ",
              self.sizes(), " ", self.dtype(), ", ", values.sizes(), " ", values.dtype(), " and ",
              indices.sizes(), " ", indices.dtype());
  kernels::SortLaunch l{};
  l.type = storage_type(self.dtype(), op);
  l.descending = descending;
  l.outer = 1;
  l.inner = 1;
  l.n = self.dim() == 0 ? 1 : self.size(dim);
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d < dim) l.outer *= self.size(d);
    if (d > dim) l.inner *= self.size(d);
  }
  l.lines = l.n == 0 ? 0 : l.outer * l.inner;
  l.self = static_cast<const char*>(self.data_ptr());
  l.values = static_cast<char*>(values.data_ptr());
  l.indices = indices.data_ptr<int64_t>();
  l.threads = block_threads((l.n + 1) / 2, kSortThreads);
  l.blocks = uint32_t(std::clamp<int64_t>(l.lines, 1, 65536));
  return l;
}

kernels::SortLaunch plan_topk_launch(const Tensor& values, const Tensor& indices,
                                     const Tensor& self, int64_t k, int64_t dim, bool largest,
                                     const Tensor& sorted_values, const Tensor& sorted_indices) {
  kernels::SortLaunch l = plan_sort_launch(sorted_values, sorted_indices, self, dim, largest);
  EMBER_CHECK(k >= 0 && k <= l.n && values.is_contiguous() && indices.is_contiguous() &&
                  values.numel() == l.outer * k * l.inner && indices.numel() == values.numel() &&
                  values.dtype() == self.dtype() && indices.dtype() == kInt64,
              "topk", "expected contiguous values and int64 indices with k = ", k,
              " along dim, got ", values.sizes(), " and ", indices.sizes());
  l.k = k;
  l.top_values = static_cast<char*>(values.data_ptr());
  l.top_indices = indices.data_ptr<int64_t>();
  return l;
}

}  // namespace ember::cuda
