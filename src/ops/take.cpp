// take and take_along_dim (front ends; take's kernel is the backend's GatherKernels::take, on
// CPU src/backend/cpu/take.cpp; take_along_dim is a gather).
#include "ember/creation.h"
#include "ember/index_ops.h"
#include "ember/math.h"
#include "ember/shape.h"
#include "ops/gather.h"
#include "ops/op_prelude.h"

namespace ember {

using backend::GatherKernels;

// ── take / take_along_dim ──────────────────────────────────────────────────────────────────

Tensor take(const Tensor& t, const Tensor& index) {
  EMBER_CHECK(index.dtype() == kInt64, "take", "Expected a long tensor for index, but got ",
              index.dtype());
  Recorder rec("take", {&t});
  const Tensor s = t.contiguous(), i = index.contiguous();
  const int64_t n = s.numel();
  const auto kernel = gather_kernel("take", t.device(), &GatherKernels::take);
  Tensor out = empty(index.sizes(), t.options());
  if (rec)
    rec.record("TakeBackward0", {out}, {index},
               [n, in = DimVector(t.sizes())](const Grads& g, const Saved& sv) {
                 const Tensor flat = sv[0].reshape({-1});
                 const Tensor idx = flat.lt(0).to(kInt64) * n + flat;
                 return TensorList{
                     index_add(zeros({n}, g[0].options()), 0, idx, g[0].reshape({-1})).view(in)};
               });
  if (i.numel() == 0) return out;
  EMBER_CHECK(n > 0, "take", "tried to take from an empty tensor");
  kernel(out, s, i);
  return out;
}

Tensor take_along_dim(const Tensor& t, const Tensor& indices, std::optional<int64_t> dim) {
  EMBER_CHECK(indices.dtype() == kInt64, "take_along_dim",
              "dtype of indices should be Long but got ", indices.dtype());
  if (!dim) return gather(t.reshape({-1}), 0, indices.reshape({-1}));
  EMBER_CHECK(t.dim() == indices.dim(), "take_along_dim",
              "input and indices should have the same number of "
              "dimensions, but got ",
              t.dim(), " dimensions for input, and ", indices.dim(), " dimensions for indices");
  const int64_t d = wrap_dim(*dim, t.dim(), "take_along_dim");
  if (t.dim() == 0) return gather(t, d, indices);
  // Broadcast everything but dim: indices keep their length there, t keeps its own.
  DimVector self_sizes(t.sizes());
  self_sizes[size_t(d)] = indices.size(d);
  const DimVector shape = broadcast_shapes(self_sizes, indices.sizes());
  DimVector t_shape(shape);
  t_shape[size_t(d)] = t.size(d);
  return gather(t.expand(t_shape), d, indices.expand(shape));
}

}  // namespace ember
