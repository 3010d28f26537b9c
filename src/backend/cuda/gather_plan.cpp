// See gather_plan.h.
#include "backend/cuda/gather_plan.h"

#include "backend/cuda/copy_plan.h"
#include "backend/cuda/elementwise_plan.h"

namespace ember::cuda {
namespace {

/// t seen over index's shape, its own strides but `dim`'s 0 when `addressed` (the kernel adds
/// entry * stride there).
Tensor over_index(const Tensor& t, const Tensor& index, int64_t dim, bool addressed) {
  DimVector strides(t.strides());
  if (addressed) strides[size_t(dim)] = 0;
  return t.as_strided(index.sizes(), strides, t.storage_offset());
}

kernels::SelectLaunch plan_select(const Tensor& out, const Tensor& src, int64_t outer, int64_t size,
                                  const Tensor& index, int64_t* bad) {
  kernels::SelectLaunch l{};
  l.itemsize = int32_t(src.element_size());
  l.outer = outer;
  l.size = size;
  l.n = index.numel();
  l.numel = out.numel();
  l.inner = l.numel == 0 ? 0 : l.numel / (outer * l.n);
  l.src = static_cast<const char*>(src.data_ptr());
  l.out = static_cast<char*>(out.data_ptr());
  l.index = index.data_ptr<int64_t>();
  l.bad = bad;
  l.threads = kElementwiseThreads;
  l.blocks = grid_blocks(l.numel);
  return l;
}

}  // namespace

kernels::GatherLaunch plan_gather_launch(kernels::GatherOp op, const Tensor& self, int64_t dim,
                                         const Tensor& index, const Tensor& other, int64_t* bad) {
  const bool gather = op == kernels::GatherOp::gather;
  const bool moves = gather || op == kernels::GatherOp::scatter;
  const char* name = gather                                 ? "gather"
                     : op == kernels::GatherOp::scatter     ? "scatter"
                     : op == kernels::GatherOp::scatter_add ? "scatter_add"
                                                            : "scatter_reduce";
  EMBER_CHECK(index.dtype() == kInt64 && self.dim() == index.dim() && other.dim() == index.dim() &&
                  self.dtype() == other.dtype() && dim >= 0 && dim < self.dim(),
              name, "expected self, index (int64) and src/out of one rank and dim in range, got ",
              self.sizes(), " ", self.dtype(), ", ", index.sizes(), " ", index.dtype(), ", ",
              other.sizes(), " ", other.dtype(), " and dim ", dim);
  kernels::GatherLaunch l{};
  l.op = op;
  if (!moves) {
    EMBER_CHECK(self.is_floating_point(), name, "the cuda backend has no ",
                dtype_name(self.dtype()), " kernel yet (", name,
                " on cuda takes float32, float64, float16 or bfloat16)");
    l.type = storage_type(self.dtype(), name);
  }
  l.itemsize = int32_t(self.element_size());
  l.size = self.size(dim);
  l.dim_stride = self.stride(dim) * self.element_size();
  l.bad = bad;
  l.alpha = 1;
  l.skip = -1;  // no entry in range is -1
  // Operand 0 is the written one; it gives the walk's order, which plan_strided takes from it.
  const Tensor lines = over_index(self, index, dim, true),
               others = over_index(other, index, dim, false);
  static_cast<kernels::Strided&>(l) = gather ? plan_strided<3>(name, {&others, &lines, &index})
                                             : plan_strided<3>(name, {&lines, &others, &index});
  return l;
}

kernels::SelectLaunch plan_index_select_launch(const Tensor& out, const Tensor& self, int64_t dim,
                                               const Tensor& index, int64_t* bad) {
  EMBER_CHECK(self.is_contiguous() && out.is_contiguous() && index.is_contiguous() &&
                  index.dtype() == kInt64 && out.dtype() == self.dtype(),
              "index_select",
              "expected contiguous self and out of one dtype and a contiguous "
              "int64 index, got ",
              self.dtype(), " ", out.dtype(), " ", index.dtype());
  int64_t outer = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= self.size(d);
  return plan_select(out, self, outer, self.dim() == 0 ? 1 : self.size(dim), index, bad);
}

kernels::SelectLaunch plan_embedding_launch(const Tensor& out, const Tensor& weight,
                                            const Tensor& indices, int64_t* bad) {
  EMBER_CHECK(weight.dim() == 2 && weight.is_contiguous() && indices.is_contiguous() &&
                  indices.dtype() == kInt64 && out.dtype() == weight.dtype(),
              "embedding",
              "expected a contiguous (num, D) weight and contiguous int64 indices, "
              "got ",
              weight.sizes(), " and ", indices.dtype());
  return plan_select(out, weight, 1, weight.size(0), indices, bad);
}

kernels::SelectLaunch plan_take_launch(const Tensor& out, const Tensor& self, const Tensor& index,
                                       int64_t* bad) {
  EMBER_CHECK(self.is_contiguous() && out.is_contiguous() && index.is_contiguous() &&
                  index.dtype() == kInt64 && out.dtype() == self.dtype() &&
                  out.numel() == index.numel(),
              "take",
              "expected contiguous self and out of one dtype and a contiguous int64 index "
              "of out's size, got ",
              self.dtype(), " ", out.dtype(), " ", index.dtype());
  kernels::SelectLaunch l = plan_select(out, self, 1, self.numel(), index, bad);
  l.wrap = 1;
  return l;
}

kernels::CheckIndexLaunch plan_check_index_launch(const Tensor& index, int64_t size, bool wrap,
                                                  int64_t* bad) {
  EMBER_CHECK(index.is_contiguous() && index.dtype() == kInt64, "index_select",
              "expected a contiguous int64 index, got ", index.dtype());
  kernels::CheckIndexLaunch l{};
  l.numel = index.numel();
  l.index = index.data_ptr<int64_t>();
  l.size = size;
  l.wrap = wrap;
  l.bad = bad;
  l.threads = kElementwiseThreads;
  l.blocks = grid_blocks(l.numel);
  return l;
}

kernels::GatherLaunch plan_index_scatter_launch(kernels::GatherOp op, const Tensor& self,
                                                int64_t dim, const Tensor& index,
                                                const Tensor& source, double alpha, int64_t* bad) {
  // A 0-d self is one slice of a 1-d one.
  const Tensor s = self.dim() == 0 ? self.view({1}) : self;
  const Tensor x = source.dim() == 0 ? source.view({1}) : source;
  EMBER_CHECK(index.dim() <= 1 && index.is_contiguous() && x.dim() == s.dim() &&
                  x.size(dim) == index.numel(),
              "index_add_",
              "expected a 1-d contiguous index with an entry per slice of source, "
              "got ",
              index.sizes(), " and source ", source.sizes());
  // Slice j of source goes to slice index[j] of self: the entry repeated over the slice.
  DimVector strides(size_t(x.dim()), 0);
  strides[size_t(dim)] = 1;
  const Tensor entries = index.as_strided(x.sizes(), strides, index.storage_offset());
  kernels::GatherLaunch l = plan_gather_launch(op, s, dim, entries, x, bad);
  l.alpha = alpha;
  return l;
}

std::pair<kernels::CheckIndexLaunch, kernels::GatherLaunch> plan_embedding_backward_launches(
    const Tensor& grad_weight, const Tensor& grad, const Tensor& indices, int64_t padding_idx,
    int64_t* counts, int64_t* bad) {
  const int64_t n = indices.numel(), D = grad_weight.size(1);
  EMBER_CHECK(grad_weight.dim() == 2 && grad.dim() == 2 && grad.size(0) == n && grad.size(1) == D &&
                  grad.is_contiguous(),
              "embedding_backward",
              "expected a (num, D) grad_weight and a contiguous (n, D) "
              "grad, got ",
              grad_weight.sizes(), " and ", grad.sizes());
  kernels::CheckIndexLaunch check =
      plan_check_index_launch(indices, grad_weight.size(0), false, bad);
  check.counts = counts;
  // grad's row j adds to grad_weight's row indices[j]: a scatter_add along dim 0 with the
  // entries repeated along D.
  const Tensor rows = indices.reshape({n, 1}).expand({n, D});
  kernels::GatherLaunch add =
      plan_gather_launch(kernels::GatherOp::scatter_add, grad_weight, 0, rows, grad, bad);
  add.skip = padding_idx;
  add.counts = counts;
  return {check, add};
}

void raise_bad_index(const char* op, const int64_t* record, int64_t dim, int64_t size) {
  if (record[0] != 0)
    fail(op, "index ", record[1], " is out of bounds for dimension ", dim, " with size ", size);
}

}  // namespace ember::cuda
