// Gathering and scattering along a dim with an index of the same rank: gather, scatter,
// scatter_add, scatter_reduce (front ends; the kernels are the backend's GatherKernels, on CPU
// src/backend/cpu/gather.cpp). index_select and friends are in index_select.cpp, take in
// take.cpp, the masked ops and nonzero in masked.cpp.
#include "ops/gather.h"

#include <algorithm>
#include <sstream>

#include "core/op_entry.h"
#include "ember/creation.h"
#include "ember/index_ops.h"
#include "ember/math.h"
#include "ember/shape.h"
#include "ops/op_prelude.h"

namespace ember {

using backend::GatherKernels;
using Reduce = backend::ScatterReduce;

namespace {

std::string shape_str(IntArrayRef s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

// PyTorch's scatter_gather checks: int64 index, equal ranks, index no larger than self (apart
// from dim) and than src.
void check_scatter_gather(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                          const Tensor* src) {
  EMBER_CHECK(index.dtype() == kInt64, op, "Expected dtype int64 for index, got ", index.dtype());
  if (!(self.is_cpu() && index.is_cpu())) [[unlikely]] {
    const Tensor* operands[] = {&self, &index, src};
    check_same_device(op, operands);
  }
  const int64_t nd = std::max<int64_t>(1, self.dim());
  const bool is_gather = src == nullptr;
  EMBER_CHECK(std::max<int64_t>(1, index.dim()) == nd, op,
              "Index tensor must have the same number of dimensions as ",
              is_gather ? "input" : "self", " tensor");
  if (src) {
    EMBER_CHECK(src->dtype() == self.dtype(), op,
                "Expected self.dtype to be equal to src.dtype (got ", self.dtype(), " and ",
                src->dtype(), ")");
    EMBER_CHECK(std::max<int64_t>(1, src->dim()) == nd, op,
                "Index tensor must have the same number of dimensions as src tensor");
  }
  if (index.numel() == 0) return;
  const Tensor s = at_least_1d(self), i = at_least_1d(index);
  for (int64_t d = 0; d < nd; ++d) {
    bool ok = d == dim || i.size(d) <= s.size(d);
    if (src) ok &= i.size(d) <= at_least_1d(*src).size(d);
    if (ok) continue;
    if (is_gather)
      fail(op, "Size does not match at dimension ", d, " expected index ", i.sizes(),
           " to be smaller than self ", s.sizes(), " apart from dimension ", dim);
    fail(op, "Expected index ", i.sizes(), " to be smaller than self ", s.sizes(),
         " apart from dimension ", dim, " and to be smaller size than src ",
         shape_str(at_least_1d(*src).sizes()));
  }
}

Reduce parse_reduce(const std::string& r) {
  if (r == "sum") return Reduce::Sum;
  if (r == "prod") return Reduce::Prod;
  if (r == "mean") return Reduce::Mean;
  if (r == "amax") return Reduce::Amax;
  if (r == "amin") return Reduce::Amin;
  fail("scatter_reduce", "reduce argument must be either sum, prod, mean, amax or amin, got ", r);
}

}  // namespace

// ── gather / scatter ───────────────────────────────────────────────────────────────────────

Tensor gather(const Tensor& t, int64_t dim, const Tensor& index) {
  dim = wrap_dim(dim, t.dim(), "gather");
  check_scatter_gather("gather", t, dim, index, nullptr);
  Recorder rec("gather", {&t});
  const auto kernel = gather_kernel("gather", t.device(), &GatherKernels::gather);
  Tensor out = empty(index.sizes(), t.options());
  if (rec)
    rec.record("GatherBackward0", {out}, {index},
               [dim, in = DimVector(t.sizes())](const Grads& g, const Saved& s) {
                 return TensorList{zeros(in, g[0].options()).scatter_add(dim, s[0], g[0])};
               });
  if (index.numel() == 0) return out;
  kernel(at_least_1d(out), at_least_1d(t), dim, at_least_1d(index));
  return out;
}

namespace {

void scatter_kernel(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_scatter_gather("scatter", self, dim, index, &src);
  const auto kernel = gather_kernel("scatter", self.device(), &GatherKernels::scatter);
  if (index.numel() == 0) return;
  kernel(at_least_1d(self), dim, at_least_1d(index), at_least_1d(src));
}

void scatter_add_kernel(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_scatter_gather("scatter_add", self, dim, index, &src);
  const auto kernel = gather_kernel("scatter_add", self.device(), &GatherKernels::scatter_add);
  if (index.numel() == 0) return;
  kernel(at_least_1d(self), dim, at_least_1d(index), at_least_1d(src));
}

// scatter: self's gradient is g with the written positions zeroed; src's is g at them.
void record_scatter(Recorder& rec, const Tensor& out, int64_t dim, const Tensor& index,
                    bool with_src) {
  rec.record(with_src ? "ScatterBackward0" : "ScatterBackward1", {out}, {index},
             [dim, with_src](const Grads& g, const Saved& s) {
               TensorList r{g[0].scatter(dim, s[0], 0)};
               if (with_src) r.push_back(g[0].gather(dim, s[0]));
               return r;
             });
}

void record_scatter_add(Recorder& rec, const Tensor& out, int64_t dim, const Tensor& index) {
  rec.record("ScatterAddBackward0", {out}, {index}, [dim](const Grads& g, const Saved& s) {
    return TensorList{g[0], g[0].gather(dim, s[0])};
  });
}

}  // namespace

Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) const {
  dim = wrap_dim(dim, this->dim(), "scatter");
  Recorder rec(Recorder::InPlace{}, "scatter_", *this, {&src});
  scatter_kernel(mut(), dim, index, src);
  impl_->storage()->bump_version();
  if (rec) record_scatter(rec, *this, dim, index, true);
  return mut();
}

Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, Scalar value) const {
  dim = wrap_dim(dim, this->dim(), "scatter");
  Recorder rec(Recorder::InPlace{}, "scatter_", *this, {});
  scatter_kernel(mut(), dim, index, full({}, value, {.dtype = dtype()}).expand(index.sizes()));
  impl_->storage()->bump_version();
  if (rec) record_scatter(rec, *this, dim, index, false);
  return mut();
}

Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const {
  dim = wrap_dim(dim, this->dim(), "scatter_add");
  Recorder rec(Recorder::InPlace{}, "scatter_add_", *this, {&src});
  scatter_add_kernel(mut(), dim, index, src);
  impl_->storage()->bump_version();
  if (rec) record_scatter_add(rec, *this, dim, index);
  return mut();
}

Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src) const {
  dim = wrap_dim(dim, this->dim(), "scatter");
  Recorder rec("scatter", {this, &src});
  Tensor out = clone();
  scatter_kernel(out, dim, index, src);
  if (rec) record_scatter(rec, out, dim, index, true);
  return out;
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, Scalar value) const {
  dim = wrap_dim(dim, this->dim(), "scatter");
  Recorder rec("scatter", {this});
  Tensor out = clone();
  scatter_kernel(out, dim, index, full({}, value, {.dtype = dtype()}).expand(index.sizes()));
  if (rec) record_scatter(rec, out, dim, index, false);
  return out;
}
Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  dim = wrap_dim(dim, this->dim(), "scatter_add");
  Recorder rec("scatter_add", {this, &src});
  Tensor out = clone();
  scatter_add_kernel(out, dim, index, src);
  if (rec) record_scatter_add(rec, out, dim, index);
  return out;
}
Tensor Tensor::gather(int64_t dim, const Tensor& index) const {
  return ember::gather(*this, dim, index);
}

Tensor scatter(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) {
  return t.scatter(dim, index, src);
}
Tensor scatter(const Tensor& t, int64_t dim, const Tensor& index, Scalar value) {
  return t.scatter(dim, index, value);
}
Tensor scatter_add(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) {
  return t.scatter_add(dim, index, src);
}

namespace {

void scatter_reduce_kernel(Tensor& t, int64_t dim, const Tensor& index, const Tensor& src, Reduce r,
                           bool include_self) {
  gather_kernel("scatter_reduce", t.device(), &GatherKernels::scatter_reduce)(
      at_least_1d(t), dim, at_least_1d(index), at_least_1d(src), r, include_self);
}

// PyTorch's scatter_reduce_backward (sum, mean, amax, amin, prod with zeros).
TensorList scatter_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim,
                                   const Tensor& index, const Tensor& src, Reduce r,
                                   bool include_self, const Tensor& result) {
  Tensor grad_self, grad_src;
  switch (r) {
    case Reduce::Sum:
      grad_self = grad;
      grad_src = grad.gather(dim, index);
      break;
    case Reduce::Mean: {
      Tensor n =
          include_self ? ones(self.sizes(), grad.options()) : zeros(self.sizes(), grad.options());
      n = n.scatter_add(dim, index, ones(src.sizes(), grad.options()));
      n = n.masked_fill(n.eq(0), 1);
      grad_self = grad / n;
      grad_src = grad.gather(dim, index) / n.gather(dim, index);
      break;
    }
    case Reduce::Amax:
    case Reduce::Amin: {
      // The gradient is shared evenly between the elements equal to the result.
      const Tensor value = result.gather(dim, index);
      const Tensor self_is = self.eq(result).to(grad.dtype());
      const Tensor src_is = src.eq(value).to(grad.dtype());
      const Tensor count =
          (include_self ? self_is : zeros_like(self_is)).scatter_add(dim, index, src_is);
      const Tensor shared = grad / count.masked_fill(count.eq(0), 1);
      grad_self = self_is * shared;
      grad_src = src_is * shared.gather(dim, index);
      break;
    }
    case Reduce::Prod: {
      // d result / d x is the product of the others. PyTorch's form: result / x where x is not
      // zero; for a zero in self, the product with self's zeros read as 1; for the only zero
      // scattered into its slot, the product with that zero read as 1; two or more zeros in a
      // slot make every gradient there zero (result is zero, and so is every other product).
      const Tensor self_ones = self.masked_fill(self.eq(0), 1);
      grad_self = grad * scatter_reduce(self_ones, dim, index, src, "prod", include_self) /
                  self_ones;
      const Tensor src_zero = src.eq(0);
      const Tensor zeros_in_slot =
          zeros_like(self).scatter_add(dim, index, src_zero.to(self.dtype())).gather(dim, index);
      const Tensor only_zero = src_zero.logical_and(zeros_in_slot.eq(1));
      const Tensor others = scatter_reduce(self, dim, index, src.masked_fill(only_zero, 1), "prod",
                                           include_self);
      grad_src = where(only_zero, (grad * others).gather(dim, index),
                       (grad * result).gather(dim, index) / src.masked_fill(src_zero, 1));
      break;
    }
  }
  if (!include_self) grad_self = grad_self.scatter(dim, index, 0);
  return {grad_self, grad_src};
}

}  // namespace

Tensor& scatter_reduce_(Tensor& t, int64_t dim, const Tensor& index, const Tensor& src,
                        const std::string& reduce, bool include_self) {
  const Reduce r = parse_reduce(reduce);
  dim = wrap_dim(dim, t.dim(), "scatter_reduce");
  check_scatter_gather("scatter_reduce", t, dim, index, &src);
  Recorder rec(Recorder::InPlace{}, "scatter_reduce_", t, {&src});
  const Tensor before = rec ? t.clone() : Tensor();
  if (index.numel() > 0) {
    scatter_reduce_kernel(t, dim, index, src, r, include_self);
    t.storage()->bump_version();
  }
  if (rec)
    rec.record("ScatterReduceBackward0", {t}, {before, index, src},
               [dim, r, include_self](const Grads& g, const Saved& s) {
                 return scatter_reduce_backward(g[0], s[0], dim, s[1], s[2], r, include_self, s[3]);
               },
               {t});
  return t;
}

Tensor scatter_reduce(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src,
                      const std::string& reduce, bool include_self) {
  const Reduce r = parse_reduce(reduce);
  dim = wrap_dim(dim, t.dim(), "scatter_reduce");
  check_scatter_gather("scatter_reduce", t, dim, index, &src);
  Recorder rec("scatter_reduce", {&t, &src});
  Tensor out = t.clone();
  if (index.numel() > 0) scatter_reduce_kernel(out, dim, index, src, r, include_self);
  if (rec)
    rec.record("ScatterReduceBackward0", {out}, {t, index, src},
               [dim, r, include_self](const Grads& g, const Saved& s) {
                 return scatter_reduce_backward(g[0], s[0], dim, s[1], s[2], r, include_self, s[3]);
               },
               {out});
  return out;
}

}  // namespace ember
