// Indexing along a dim with a 1-D index: index_select, index_add_/index_copy_/index_fill_ and
// their out-of-place forms (front ends; the kernels are the backend's GatherKernels, on CPU
// src/backend/cpu/index_select.cpp).
#include "ember/creation.h"
#include "ember/index_ops.h"
#include "ember/math.h"
#include "ember/shape.h"
#include "ops/copy.h"
#include "ops/gather.h"
#include "ops/op_prelude.h"

namespace ember {

using backend::GatherKernels;

namespace {

// A 1-D (or 0-d) int64/int32 index as contiguous int64, every entry checked against size;
// negative entries wrap when `wrap`.
Tensor vector_index(const char* op, const Tensor& index, int64_t dim, int64_t size, bool wrap,
                    bool allow_int32 = true) {
  EMBER_CHECK(index.dim() <= 1, op, "Index is supposed to be a vector, got ", index.dim(), "-D");
  EMBER_CHECK(index.dtype() == kInt64 || (allow_int32 && index.dtype() == kInt32), op,
              "Expected dtype ", allow_int32 ? "int32 or int64" : "int64", " for index, got ",
              index.dtype());
  Tensor idx = index.to(kInt64).contiguous().reshape({-1});
  if (wrap && idx.is_same(index)) idx = idx.clone();
  gather_kernel(op, idx.device(), &GatherKernels::check_index)(op, idx, dim, size, wrap);
  return idx;
}

// source must match self apart from dim, and have index.numel() entries along it.
void check_source(const char* op, const Tensor& self, int64_t dim, const Tensor& source,
                  int64_t n) {
  EMBER_CHECK(source.dtype() == self.dtype(), op, "self (", self.dtype(), ") and source (",
              source.dtype(), ") must have the same scalar type");
  const Tensor s = at_least_1d(self), x = at_least_1d(source);
  bool ok = s.dim() == x.dim();
  for (int64_t d = 0; ok && d < s.dim(); ++d) ok = d == dim || s.size(d) == x.size(d);
  EMBER_CHECK(ok, op,
              "source tensor shape must match self tensor shape, excluding the "
              "specified dimension. Got self.shape = ",
              self.sizes(), " source.shape = ", source.sizes());
  EMBER_CHECK(x.size(dim) == n, op, "Number of indices (", n,
              ") should be equal to source.size(dim) (", x.size(dim), ")");
}

}  // namespace

// ── index_select / index_add_ / index_copy_ / index_fill_ ──────────────────────────────────

Tensor index_select(const Tensor& t, int64_t dim, const Tensor& index) {
  dim = wrap_dim(dim, t.dim(), "index_select");
  Recorder rec("index_select", {&t});
  const Tensor s = at_least_1d(t).contiguous();
  const Tensor idx = vector_index("index_select", index, dim, s.size(dim), /*wrap=*/false);
  if (rec) {
    Tensor out = index_select(t, dim, index);  // grad mode is off: the kernel below
    rec.record("IndexSelectBackward0", {out}, {idx},
               [dim, in = DimVector(t.sizes())](const Grads& g, const Saved& s) {
                 if (in.empty()) return TensorList{g[0].reshape({})};
                 return TensorList{index_add(zeros(in, g[0].options()), dim, s[0], g[0])};
               });
    return out;
  }
  if (t.dim() == 0) return t.clone();
  const auto kernel = gather_kernel("index_select", t.device(), &GatherKernels::index_select);
  DimVector shape(t.sizes());
  shape[size_t(dim)] = idx.numel();
  Tensor out = empty(shape, t.options());
  kernel(out, s, dim, idx);
  return out;
}

namespace {

void record_index_add(Recorder& rec, const Tensor& out, int64_t dim, const Tensor& index,
                      Scalar alpha, bool scalar_source) {
  rec.record("IndexAddBackward0", {out}, {index},
             [dim, alpha, scalar_source](const Grads& g, const Saved& s) {
               Tensor src = g[0].dim() == 0 ? g[0] : g[0].index_select(dim, s[0]);
               if (scalar_source) src = src.reshape({});
               if (!(alpha.is_integral() && alpha.to_int() == 1)) src = src * alpha;
               return TensorList{g[0], src};
             });
}

void record_index_copy(Recorder& rec, const Tensor& out, int64_t dim, const Tensor& index,
                       bool scalar_source) {
  rec.record("IndexCopyBackward0", {out}, {index},
             [dim, scalar_source](const Grads& g, const Saved& s) {
               if (g[0].dim() == 0) return TensorList{zeros_like(g[0]), g[0]};
               Tensor src = g[0].index_select(dim, s[0]);
               if (scalar_source) src = src.reshape({});
               return TensorList{index_fill(g[0], dim, s[0], 0), src};
             });
}

void record_index_fill(Recorder& rec, const Tensor& out, int64_t dim, const Tensor& index) {
  rec.record("IndexFillBackward0", {out}, {index}, [dim](const Grads& g, const Saved& s) {
    return TensorList{index_fill(g[0], dim, s[0], 0)};
  });
}

}  // namespace

Tensor& Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source,
                           Scalar alpha) const {
  Recorder rec(Recorder::InPlace{}, "index_add_", *this, {&source});
  if (rec) {
    Tensor& r = index_add_(dim, index, source, alpha);  // grad mode is off: the kernel below
    record_index_add(rec, r, wrap_dim(dim, this->dim(), "index_add_"), index, alpha,
                     source.dim() == 0);
    return r;
  }
  dim = wrap_dim(dim, this->dim(), "index_add_");
  const Tensor idx = vector_index("index_add_", index, dim, at_least_1d(*this).size(dim), false);
  check_source("index_add_", *this, dim, source, idx.numel());
  const auto kernel = gather_kernel("index_add_", device(), &GatherKernels::index_add);
  const Tensor x = at_least_1d(source).contiguous();
  return in_place(mut(), [&](Tensor& w) { kernel(at_least_1d(w), dim, idx, x, alpha); });
}

Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index, const Tensor& source) const {
  Recorder rec(Recorder::InPlace{}, "index_copy_", *this, {&source});
  if (rec) {
    Tensor& r = index_copy_(dim, index, source);  // grad mode is off: the kernel below
    record_index_copy(rec, r, wrap_dim(dim, this->dim(), "index_copy_"), index, source.dim() == 0);
    return r;
  }
  dim = wrap_dim(dim, this->dim(), "index_copy_");
  const Tensor idx = vector_index("index_copy_", index, dim, at_least_1d(*this).size(dim), false,
                                  /*allow_int32=*/false);
  check_source("index_copy_", *this, dim, source, idx.numel());
  const auto kernel = gather_kernel("index_copy_", device(), &GatherKernels::index_copy);
  const Tensor x = at_least_1d(source).contiguous();
  return in_place(mut(), [&](Tensor& w) { kernel(at_least_1d(w), dim, idx, x); });
}

Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, Scalar value) const {
  Recorder rec(Recorder::InPlace{}, "index_fill_", *this, {});
  if (rec) {
    Tensor& r = index_fill_(dim, index, value);  // grad mode is off: the kernel below
    record_index_fill(rec, r, wrap_dim(dim, this->dim(), "index_fill_"), index);
    return r;
  }
  dim = wrap_dim(dim, this->dim(), "index_fill_");
  const Tensor idx = vector_index("index_fill_", index, dim, at_least_1d(*this).size(dim),
                                  /*wrap=*/true, /*allow_int32=*/false);
  check_scalar_fits(value, dtype(), "fill_");  // as filling a tensor with it would
  const auto kernel = gather_kernel("index_fill_", device(), &GatherKernels::index_fill);
  return in_place(mut(), [&](Tensor& w) { kernel(at_least_1d(w), dim, idx, value); });
}

Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  return ember::index_select(*this, dim, index);
}
Tensor index_add(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source,
                 Scalar alpha) {
  Recorder rec("index_add", {&t, &source});
  Tensor out = t.clone();
  out.index_add_(dim, index, source, alpha);
  if (rec)
    record_index_add(rec, out, wrap_dim(dim, t.dim(), "index_add"), index, alpha,
                     source.dim() == 0);
  return out;
}
Tensor index_copy(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source) {
  Recorder rec("index_copy", {&t, &source});
  if (rec.autocast()) return index_copy(rec.cast(0), dim, index, rec.cast(1));
  Tensor out = t.clone();
  out.index_copy_(dim, index, source);
  if (rec)
    record_index_copy(rec, out, wrap_dim(dim, t.dim(), "index_copy"), index, source.dim() == 0);
  return out;
}
Tensor index_fill(const Tensor& t, int64_t dim, const Tensor& index, Scalar value) {
  Recorder rec("index_fill", {&t});
  Tensor out = t.clone();
  out.index_fill_(dim, index, value);
  if (rec) record_index_fill(rec, out, wrap_dim(dim, t.dim(), "index_fill"), index);
  return out;
}

}  // namespace ember
