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
  l.pick = kernels::Pick::first_k;
  l.k = k;
  l.top_values = static_cast<char*>(values.data_ptr());
  l.top_indices = indices.data_ptr<int64_t>();
  return l;
}

kernels::SortLaunch plan_select_launch(const char* op, kernels::Pick pick, const Tensor& values,
                                       const Tensor& indices, const Tensor& self, int64_t dim,
                                       int64_t kth, const Tensor& sorted_values,
                                       const Tensor& sorted_indices) {
  const bool all_elements = dim < 0;
  const Tensor line = all_elements ? self.reshape({self.numel()}) : self;
  kernels::SortLaunch l = plan_sort_launch(sorted_values.reshape(line.sizes()),
                                           sorted_indices.reshape(line.sizes()), line,
                                           all_elements ? 0 : dim, false);
  EMBER_CHECK(values.is_contiguous() && values.dtype() == self.dtype() &&
                  values.numel() == (all_elements ? 1 : l.outer * l.inner) &&
                  (all_elements ? !indices.defined()
                                : indices.is_contiguous() && indices.dtype() == kInt64 &&
                                      indices.numel() == values.numel()),
              op, "expected contiguous values", all_elements ? "" : " and int64 indices",
              " with one element per line, got ", values.sizes(), " ", values.dtype(),
              indices.defined() ? " and indices of " : "",
              indices.defined() ? indices.sizes() : values.sizes());
  EMBER_CHECK(pick != kernels::Pick::kth || (kth >= 1 && kth <= l.n), op, "expected k in [1, ", l.n,
              "], got ", kth);
  // The median of no elements is NaN, which only the floating types have (PyTorch's message).
  EMBER_CHECK(l.n > 0 || (all_elements && is_floating_point(self.dtype())), op,
              "median() of an empty tensor is undefined for dtype ", self.dtype());
  if (all_elements) l.lines = 1;  // an empty tensor's NaN comes from the one line's leader
  l.pick = pick;
  l.k = 1;
  l.kth = kth;
  l.top_values = static_cast<char*>(values.data_ptr());
  l.top_indices = indices.defined() ? indices.data_ptr<int64_t>() : nullptr;
  return l;
}

}  // namespace ember::cuda
