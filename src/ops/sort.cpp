// Sorting and selection along a dim: sort/argsort (stable; NaN is the largest value), topk,
// kthvalue, median/nanmedian and mode: shapes, checks and autograd. The kernels are the
// backend's sort family (backend/sort_kernels.h); where PyTorch's result depends on its
// algorithm they run the same one (Note [Matching PyTorch's ties] in backend/cpu/sort.cpp).
#include "backend/family_kernel.h"
#include "ember/creation.h"
#include "ember/index_ops.h"
#include "ember/shape.h"
#include "ops/op_prelude.h"
#include "ops/reduce.h"

namespace ember {
namespace {

using backend::Backend;
using backend::SortKernels;

// Entry `entry` of t's device's sort kernels (`[op] no kernel for <device>` when it has none).
template <class Fn>
Fn sort_kernel_of(const char* op, const Tensor& t, Fn SortKernels::*entry) {
  return backend::kernel(op, t.device(), &Backend::sort, entry);
}

DimVector reduced_shape(const Tensor& t, int64_t dim, bool keepdim) {
  DimVector s;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d != dim)
      s.push_back(t.size(d));
    else if (keepdim)
      s.push_back(1);
  }
  return s;
}

}  // namespace

// ── sort / argsort ─────────────────────────────────────────────────────────────────────────

namespace {
std::tuple<Tensor, Tensor> sort_impl(const Tensor& t, int64_t dim, bool descending, bool stable) {
  const auto kernel = sort_kernel_of("sort", t, &SortKernels::sort);
  dim = wrap_dim(dim, t.dim(), "sort");
  Tensor values = empty(t.sizes(), t.options());
  Tensor indices = empty(t.sizes(), {.dtype = kInt64, .device = t.device()});
  if (t.numel() == 0) return {values, indices};
  kernel(values, indices, t.contiguous(), t.dim() == 0 ? 0 : dim, descending, stable);
  return {values, indices};
}
}  // namespace

Tensor argsort(const Tensor& t, int64_t dim, bool descending, bool stable) {
  return std::get<1>(sort(t, dim, descending, stable));
}

std::tuple<Tensor, Tensor> Tensor::sort(int64_t dim, bool descending) const {
  return ember::sort(*this, dim, descending, true);
}
Tensor Tensor::argsort(int64_t dim, bool descending) const {
  return ember::argsort(*this, dim, descending, true);
}

// ── topk / kthvalue ────────────────────────────────────────────────────────────────────────

namespace {
std::tuple<Tensor, Tensor> topk_impl(const Tensor& t, int64_t k, int64_t dim, bool largest,
                                     bool sorted) {
  const auto kernel = sort_kernel_of("topk", t, &SortKernels::topk);
  dim = wrap_dim(dim, t.dim(), "topk");
  const int64_t n = t.dim() == 0 ? 1 : t.size(dim);
  EMBER_CHECK(k >= 0 && k <= n, "topk", "selected index k out of range (k = ", k,
              ", dimension size ", n, ")");
  DimVector shape(t.sizes());
  if (t.dim() > 0) shape[size_t(dim)] = k;
  Tensor values = empty(shape, t.options());
  Tensor indices = empty(shape, {.dtype = kInt64, .device = t.device()});
  if (k == 0 || t.numel() == 0) return {values, indices};
  kernel(values, indices, t.contiguous(), k, t.dim() == 0 ? 0 : dim, largest, sorted);
  return {values, indices};
}
}  // namespace

std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest, bool sorted) const {
  return ember::topk(*this, k, dim, largest, sorted);
}

namespace {
std::tuple<Tensor, Tensor> kthvalue_impl(const Tensor& t, int64_t k, int64_t dim, bool keepdim) {
  const auto kernel = sort_kernel_of("kthvalue", t, &SortKernels::kthvalue);
  dim = wrap_dim(dim, t.dim(), "kthvalue");
  const int64_t n = t.dim() == 0 ? 1 : t.size(dim);
  EMBER_CHECK(k >= 1 && k <= n, "kthvalue", "selected number k out of range for dimension ", dim,
              " (k = ", k, ", size ", n, ")");
  const DimVector shape = reduced_shape(t, dim, keepdim);
  Tensor values = empty(shape, t.options());
  Tensor indices = empty(shape, {.dtype = kInt64, .device = t.device()});
  if (values.numel() == 0) return {values, indices};
  kernel(values, indices, t.contiguous(), k, t.dim() == 0 ? 0 : dim);
  return {values, indices};
}

// ── median / nanmedian / mode ──────────────────────────────────────────────────────────────

Tensor median_all(const Tensor& t, bool ignore_nan, const char* op) {
  const auto kernel = sort_kernel_of(op, t, &SortKernels::median_all);
  Tensor out = empty({}, t.options());
  kernel(op, out, t.contiguous(), ignore_nan);
  return out;
}

// Lower median along dim, ties broken by index. Without ignore_nan a NaN (the first one) is the
// result; with it, NaNs are left out.
std::tuple<Tensor, Tensor> median_dim(const Tensor& t, int64_t dim, bool keepdim, bool ignore_nan,
                                      const char* op) {
  const auto kernel = sort_kernel_of(op, t, &SortKernels::median);
  dim = wrap_dim(dim, t.dim(), op);
  const int64_t n = t.dim() == 0 ? 1 : t.size(dim);
  EMBER_CHECK(n > 0 || t.numel() == 0 || t.dim() == 0, op,
              "median() cannot compute the median of an empty dimension");
  const DimVector shape = reduced_shape(t, dim, keepdim);
  Tensor values = empty(shape, t.options());
  Tensor indices = empty(shape, {.dtype = kInt64, .device = t.device()});
  if (values.numel() == 0) return {values, indices};
  EMBER_CHECK(n > 0, op, "median() cannot compute the median of an empty dimension");
  kernel(op, values, indices, t.contiguous(), t.dim() == 0 ? 0 : dim, ignore_nan);
  return {values, indices};
}

std::tuple<Tensor, Tensor> mode_impl(const Tensor& t, int64_t dim, bool keepdim) {
  const auto kernel = sort_kernel_of("mode", t, &SortKernels::mode);
  dim = wrap_dim(dim, t.dim(), "mode");
  const int64_t n = t.dim() == 0 ? 1 : t.size(dim);
  const DimVector shape = reduced_shape(t, dim, keepdim);
  Tensor values = empty(shape, t.options());
  Tensor indices = empty(shape, {.dtype = kInt64, .device = t.device()});
  if (values.numel() == 0) return {values, indices};
  EMBER_CHECK(n > 0, "mode", "Expected reduction dim ", dim, " to have non-zero size.");
  kernel(values, indices, t.contiguous(), t.dim() == 0 ? 0 : dim);
  return {values, indices};
}

}  // namespace

// ── gradients: the selected values' gradient goes back to their indices ──────────────────────
namespace {

// Runs `kernel` (-> values, indices along `dim`) and records `node` for the values.
template <class F>
std::tuple<Tensor, Tensor> selecting(const char* op, const char* node, const Tensor& t,
                                     int64_t dim, bool keepdim, F kernel) {
  Recorder rec(op, {&t});
  auto [values, indices] = kernel();
  if (rec)
    rec.record(node, {values}, {indices},
               [dim = t.dim() == 0 ? int64_t(0) : wrap_dim(dim, t.dim(), op), keepdim,
                sizes = DimVector(t.sizes())](const Grads& g, const Saved& s) {
                 return TensorList{value_selecting_backward(g[0], dim, s[0], sizes, keepdim)};
               });
  return {values, indices};
}

// median() / nanmedian(): the gradient shared among the elements equal to the result.
Tensor median_recorded(const Tensor& t, bool ignore_nan, const char* op, const char* node) {
  Recorder rec(op, {&t});
  Tensor out = median_all(t, ignore_nan, op);
  if (rec)
    rec.record(node, {out}, {t},
               [](const Grads& g, const Saved& s) {
                 return TensorList{evenly_distribute_backward(g[0], s[0], s[1])};
               },
               {out});
  return out;
}

}  // namespace

std::tuple<Tensor, Tensor> sort(const Tensor& t, int64_t dim, bool descending, bool stable) {
  return selecting("sort", "SortBackward0", t, dim, true,
                   [&] { return sort_impl(t, dim, descending, stable); });
}
std::tuple<Tensor, Tensor> topk(const Tensor& t, int64_t k, int64_t dim, bool largest,
                                bool sorted) {
  return selecting("topk", "TopkBackward0", t, dim, true,
                   [&] { return topk_impl(t, k, dim, largest, sorted); });
}
std::tuple<Tensor, Tensor> kthvalue(const Tensor& t, int64_t k, int64_t dim, bool keepdim) {
  return selecting("kthvalue", "KthvalueBackward0", t, dim, keepdim,
                   [&] { return kthvalue_impl(t, k, dim, keepdim); });
}
std::tuple<Tensor, Tensor> mode(const Tensor& t, int64_t dim, bool keepdim) {
  return selecting("mode", "ModeBackward0", t, dim, keepdim,
                   [&] { return mode_impl(t, dim, keepdim); });
}

Tensor median(const Tensor& t) {
  return median_recorded(t, false, "median", "MedianBackward0");
}
Tensor nanmedian(const Tensor& t) {
  return median_recorded(t, true, "nanmedian", "NanmedianBackward0");
}
std::tuple<Tensor, Tensor> median(const Tensor& t, int64_t dim, bool keepdim) {
  return selecting("median", "MedianBackward1", t, dim, keepdim,
                   [&] { return median_dim(t, dim, keepdim, false, "median"); });
}
std::tuple<Tensor, Tensor> nanmedian(const Tensor& t, int64_t dim, bool keepdim) {
  return selecting("nanmedian", "NanmedianBackward1", t, dim, keepdim,
                   [&] { return median_dim(t, dim, keepdim, true, "nanmedian"); });
}

}  // namespace ember
