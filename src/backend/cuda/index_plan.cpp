// See index_plan.h.
#include "backend/cuda/index_plan.h"

#include <limits>

#include "backend/buffers.h"
#include "backend/cuda/copy_plan.h"
#include "backend/cuda/elementwise_plan.h"
#include "ember/tensor_impl.h"

namespace ember::cuda {
namespace {

// t's storage seen with other sizes and element strides: the walk's operands.
Tensor strided_view(const Tensor& t, IntArrayRef sizes, IntArrayRef strides) {
  return Tensor(
      make_intrusive<TensorImpl>(t.storage(), t.dtype(), sizes, strides, t.storage_offset()));
}

}  // namespace

IndexWork plan_index(const char* name, kernels::GatherOp op, const Tensor& plain,
                     const backend::AdvancedIndex& at) {
  const Tensor& src = at.src;
  const int64_t m = int64_t(at.indices.size());
  EMBER_CHECK(m >= 1 && m <= kernels::kMaxDims && at.first >= 0 && at.first + m <= src.dim(), name,
              "the cuda kernel expects 1 to ", kernels::kMaxDims, " indices of src's dims, got ", m,
              " from dim ", at.first, " of ", src.sizes());
  const int64_t count = at.indices[0].numel();
  for (const Tensor& index : at.indices)
    EMBER_CHECK(index.dtype() == kInt64 && index.is_contiguous() && index.numel() == count, name,
                "expected contiguous int64 indices of one shape, got ", index.sizes(), " ",
                index.dtype());
  EMBER_CHECK(plain.dtype() == src.dtype(), name, "expected ", src.dtype(), " values, got ",
              plain.dtype());
  IndexWork w{};
  const Device device = src.device();
  w.offsets = backend::new_buffer({count}, kInt64, device, name);
  w.record = backend::new_zeros({2 * m}, kInt64, device);
  w.walk_record = backend::new_zeros({2}, kInt64, device);
  kernels::IndexOffsetsLaunch& o = w.offsets_launch;
  o.count = count;
  o.m = int32_t(m);
  for (int64_t k = 0; k < m; ++k) {
    o.indices[k] = at.indices[size_t(k)].data_ptr<int64_t>();
    o.sizes[k] = src.size(at.first + k);
    o.strides[k] = src.stride(at.first + k);
  }
  o.offsets = w.offsets.data_ptr<int64_t>();
  o.bad = w.record.data_ptr<int64_t>();
  o.threads = kElementwiseThreads;
  o.blocks = grid_blocks(count);

  // The walk's shape (B..., J, A...): src's strides for B and A, 0 along J, where the offsets
  // (stride 1 along J, 0 elsewhere) take over; the plain operand gets the result's layout with
  // S flattened into J.
  DimVector shape, src_strides, offset_strides, plain_strides;
  for (int64_t d = 0; d < src.dim(); ++d) {
    if (d > at.first && d < at.first + m) continue;
    const bool j = d == at.first;
    shape.push_back(j ? count : src.size(d));
    src_strides.push_back(j ? 0 : src.stride(d));
    offset_strides.push_back(j ? 1 : 0);
  }
  const int64_t s_dims = at.indices[0].dim();
  EMBER_CHECK(plain.dim() == src.dim() - m + s_dims, name,
              "expected values of the result's rank, got ", plain.sizes(), " for ", src.sizes(),
              " indexed by ", m, " indices of ", at.indices[0].sizes());
  // The J stride of S's dims flattened: the innermost one's, where each dim's stride is the
  // next one's times its size (size-1 dims aside), else a contiguous copy of the values.
  const auto flat_stride = [&](const Tensor& t) -> int64_t {
    int64_t stride = 0, span = -1;  // span: the stride one dim further out must have
    for (int64_t d = at.first + s_dims - 1; d >= at.first; --d) {
      if (t.size(d) == 1) continue;
      if (span >= 0 && t.stride(d) != span) return -1;
      if (span < 0) stride = t.stride(d);
      span = t.stride(d) * t.size(d);
    }
    return stride;
  };
  w.plain = flat_stride(plain) >= 0 ? plain : plain.contiguous();
  for (int64_t d = 0; d < at.first; ++d) plain_strides.push_back(w.plain.stride(d));
  plain_strides.push_back(flat_stride(w.plain));
  for (int64_t d = at.first + s_dims; d < w.plain.dim(); ++d)
    plain_strides.push_back(w.plain.stride(d));
  const Tensor src_view = strided_view(src, shape, src_strides);
  const Tensor plain_view = strided_view(w.plain, shape, plain_strides);
  const Tensor offset_view = strided_view(w.offsets, shape, offset_strides);

  kernels::GatherLaunch& l = w.walk;
  const bool gather = op == kernels::GatherOp::gather;
  static_cast<kernels::Strided&>(l) =
      gather ? plan_strided<3>(name, {&plain_view, &src_view, &offset_view})
             : plan_strided<3>(name, {&src_view, &plain_view, &offset_view});
  l.op = op;
  if (op == kernels::GatherOp::scatter_add) {
    EMBER_CHECK(src.is_floating_point(), name, "the cuda backend has no ", dtype_name(src.dtype()),
                " kernel yet (", name,
                " with accumulate on cuda "
                "takes float32, float64, float16 or bfloat16)");
    l.type = storage_type(src.dtype(), name);
  }
  l.itemsize = int32_t(src.element_size());
  l.size = std::numeric_limits<int64_t>::max();  // the offsets are checked in step 1
  l.dim_stride = src.element_size();             // an entry is an element offset
  l.bad = w.walk_record.data_ptr<int64_t>();
  l.alpha = 1;
  l.skip = -1;
  l.counts = nullptr;
  return w;
}

void raise_bad_index_entry(const int64_t* record, const backend::AdvancedIndex& at) {
  for (size_t k = 0; k < at.indices.size(); ++k)
    if (record[2 * k] != 0)
      fail("index", "index ", record[2 * k + 1], " is out of bounds for dimension ", k,
           " with size ", at.src.size(at.first + int64_t(k)));
}

}  // namespace ember::cuda
