// masked_select, masked_scatter(_), nonzero, nonzero_tuple and argwhere (front ends; the kernels
// are the backend's GatherKernels, on CPU src/backend/cpu/masked.cpp).
#include "core/op_entry.h"
#include "ember/creation.h"
#include "ember/index_ops.h"
#include "ember/math.h"
#include "ember/shape.h"
#include "ops/gather.h"
#include "ops/op_prelude.h"

namespace ember {

using backend::GatherKernels;

// ── masks and nonzero ──────────────────────────────────────────────────────────────────────

Tensor masked_select(const Tensor& t, const Tensor& mask) {
  EMBER_CHECK(mask.dtype() == kBool || mask.dtype() == kUInt8, "masked_select",
              "masked_select: expected BoolTensor for mask, got ", mask.dtype());
  const DimVector shape = broadcast_shapes(t.sizes(), mask.sizes());
  Recorder rec("masked_select", {&t});
  if (rec) {
    Tensor out = masked_select(t, mask);  // grad mode is off: the kernel below
    rec.record("MaskedSelectBackward0", {out}, {mask}, [shape](const Grads& g, const Saved& s) {
      return TensorList{masked_scatter(zeros(shape, g[0].options()), s[0], g[0])};
    });
    return out;
  }
  const auto kernel = gather_kernel("masked_select", t.device(), &GatherKernels::masked_select);
  return kernel(t.expand(shape).contiguous(), mask.expand(shape).to(kBool).contiguous());
}

namespace {

void record_masked_scatter(Recorder& rec, const Tensor& out, const Tensor& mask,
                           const Tensor& source) {
  rec.record("MaskedScatterBackward0", {out}, {mask},
             [src = DimVector(source.sizes()), n = source.numel()](const Grads& g, const Saved& s) {
               const Tensor m = s[0].to(kBool);
               Tensor picked = masked_select(g[0], m);
               if (picked.numel() < n)
                 picked = cat({picked, zeros({n - picked.numel()}, g[0].options())});
               return TensorList{g[0].masked_fill(m, 0), picked.view(src)};
             });
}

}  // namespace

Tensor& masked_scatter_(Tensor& t, const Tensor& mask, const Tensor& source) {
  Recorder rec(Recorder::InPlace{}, "masked_scatter_", t, {&source});
  if (rec) {
    masked_scatter_(t, mask, source);  // grad mode is off: the kernel below
    record_masked_scatter(rec, t, mask, source);
    return t;
  }
  EMBER_CHECK(mask.dtype() == kBool || mask.dtype() == kUInt8, "masked_scatter_",
              "masked_scatter_: expected BoolTensor or ByteTensor for mask, got ", mask.dtype());
  EMBER_CHECK(source.dtype() == t.dtype(), "masked_scatter_",
              "masked_scatter: expected self and source to have same dtypes but got ", t.dtype(),
              " and ", source.dtype());
  const auto kernel =
      gather_kernel("masked_scatter_", t.device(), &GatherKernels::masked_scatter);
  const Tensor m = mask.expand(t.sizes()).to(kBool).contiguous();
  const Tensor x = source.contiguous();
  return in_place(t, [&](Tensor& w) { kernel(w, m, x); });
}

Tensor masked_scatter(const Tensor& t, const Tensor& mask, const Tensor& source) {
  Recorder rec("masked_scatter", {&t, &source});
  Tensor out = t.expand(broadcast_shapes(t.sizes(), mask.sizes())).clone();
  masked_scatter_(out, mask, source);
  if (rec) record_masked_scatter(rec, out, mask, source);
  return out;
}

Tensor nonzero(const Tensor& t) {
  OpScope scope("nonzero", {&t});
  const auto kernel = gather_kernel("nonzero", t.device(), &GatherKernels::nonzero);
  return kernel(t.contiguous());
}

std::vector<Tensor> nonzero_tuple(const Tensor& t) {
  if (t.dim() == 0) return {nonzero(t.reshape({1})).select(1, 0)};
  return nonzero(t).unbind(1);
}

Tensor argwhere(const Tensor& t) { return nonzero(t); }

Tensor Tensor::masked_select(const Tensor& mask) const { return ember::masked_select(*this, mask); }
Tensor Tensor::nonzero() const { return ember::nonzero(*this); }

}  // namespace ember
