// Reductions over any set of dims: sum, nansum, mean, nanmean, prod, amax/amin, aminmax,
// all/any, count_nonzero, norm / vector_norm, var/std (+ _mean). Index-returning reductions
// (max/min with dim, argmax/argmin) and logsumexp live in reduce_index.cpp; softmax and scans in
// softmax.cpp.
//
// The front end: dims, output dtypes and shapes, keepdim, and the backward formulas. The kernels
// are the backend's reduction family (backend/reduce_kernels.h; the CPU's walk any layout, Note
// [Reduction layouts] in backend/cpu/reduce.cpp).
#include "ops/reduce.h"

#include <cmath>
#include <limits>
#include <memory>

#include "backend/family_kernel.h"
#include "ember/creation.h"
#include "ember/index_ops.h"
#include "ember/math.h"
#include "ember/reduce.h"
#include "ember/shape.h"
#include "ops/op_prelude.h"

namespace ember {

DimVector reduction_dims(IntArrayRef dims, int64_t ndim, const char* op) {
  DimVector out;
  if (dims.empty()) {
    for (int64_t d = 0; d < ndim; ++d) out.push_back(d);
    return out;
  }
  std::vector<bool> seen(size_t(std::max<int64_t>(ndim, 1)), false);
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, ndim, op);
    EMBER_CHECK(!seen[w], op, "dim ", w, " appears multiple times in the list of dims");
    seen[w] = true;
    if (ndim > 0) out.push_back(w);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Tensor unreduce(const Tensor& grad, IntArrayRef sizes, IntArrayRef dims, bool keepdim) {
  const Tensor g = keepdim ? grad : grad.reshape(reduced_shape(sizes, dims, true));
  return g.expand(sizes);
}

Tensor keep_reduced(const Tensor& t, IntArrayRef sizes, IntArrayRef dims, bool keepdim) {
  if (keepdim || int64_t(sizes.size()) == t.dim()) return t;
  return t.reshape(reduced_shape(sizes, dims, true));
}

Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& input, const Tensor& value) {
  const Tensor mask = value.isnan().item<bool>() ? input.isnan() : input.eq(value);
  return mask * (grad / mask.sum());
}

Tensor value_selecting_backward(const Tensor& grad, int64_t dim, const Tensor& indices,
                                IntArrayRef sizes, bool keepdim) {
  if (sizes.empty()) return grad;  // a 0-d input: the only element was selected
  const DimVector d{dim};
  return zeros(sizes, {.dtype = grad.dtype()})
      .scatter(dim, keep_reduced(indices, sizes, d, keepdim), keep_reduced(grad, sizes, d, keepdim));
}

DimVector reduced_shape(IntArrayRef sizes, IntArrayRef dims, bool keepdim) {
  DimVector out;
  for (int64_t d = 0; d < int64_t(sizes.size()); ++d) {
    const bool reduced = std::find(dims.begin(), dims.end(), d) != dims.end();
    if (!reduced) out.push_back(sizes[d]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

namespace {

using backend::Backend;
using backend::ReduceKernels;

/// Reduces `self` over dims into a new tensor of out_dtype on self's device, by kernel `entry`
/// (`arg`: ReduceCall::arg).
Tensor reduce(const char* op, const Tensor& self, IntArrayRef dims_in, bool keepdim,
              Dtype out_dtype, backend::ReduceFn ReduceKernels::*entry, double arg = 0) {
  const backend::ReduceFn kernel = backend::kernel(op, self.device(), &Backend::reduce, entry);
  const DimVector dims = reduction_dims(dims_in, self.dim(), op);
  Tensor out = empty(reduced_shape(self.sizes(), dims, false),
                     {.dtype = out_dtype, .device = self.device()});
  kernel({op, out, self, dims, arg});
  return keepdim ? out.view(reduced_shape(self.sizes(), dims, true)) : out;
}

void check_nonempty(const Tensor& self, IntArrayRef dims, const char* op) {
  const DimVector d = reduction_dims(dims, self.dim(), op);
  for (int64_t i : d)
    EMBER_CHECK(self.sizes()[i] != 0, op, "Expected reduction dim ", i,
                " to have non-zero size.");
  EMBER_CHECK(self.numel() != 0 || self.dim() != 0 || !d.empty(), op,
              "Expected reduction dim to be specified for input.numel() == 0.");
}

Dtype sum_dtype(const Tensor& self, std::optional<Dtype> dtype) {
  if (dtype) return *dtype;
  return is_integral(self.dtype(), true) ? kInt64 : self.dtype();
}

Tensor sum_impl(const Tensor& self, IntArrayRef dims, bool keepdim, std::optional<Dtype> dtype,
                 const char* node) {
  autograd::Recorder rec("sum", {&self});
  const Dtype out = sum_dtype(self, dtype);
  const Tensor in = self.dtype() == out || (is_integral(self.dtype(), true) && out == kInt64)
                        ? self
                        : self.to(out);
  Tensor r = reduce("sum", in, dims, keepdim, out, &ReduceKernels::sum);
  if (rec)
    rec.record(node, {r}, {},
               [sizes = DimVector(self.sizes()), d = reduction_dims(dims, self.dim(), "sum"),
                keepdim](const autograd::Grads& g, const autograd::Saved&) {
                 return autograd::TensorList{unreduce(g[0], sizes, d, keepdim)};
               });
  return r;
}

Tensor mean_impl(const Tensor& self, IntArrayRef dims_in, bool keepdim, std::optional<Dtype> dtype,
                 const char* op) {
  const Dtype out = dtype.value_or(self.dtype());
  EMBER_CHECK(is_floating_point(out), op, "could not infer output dtype. Input dtype must be ",
              "either a floating point or complex dtype. Got: ", self.dtype());
  const DimVector dims = reduction_dims(dims_in, self.dim(), op);
  int64_t count = 1;
  for (int64_t d : dims) count *= self.sizes()[d];
  autograd::Recorder rec(op, {&self});
  const Tensor in = self.dtype() == out ? self : self.to(out);
  Tensor r = reduce(op, in, dims, keepdim, out, &ReduceKernels::mean, double(count));
  if (rec)
    rec.record(dims_in.empty() ? "MeanBackward0" : "MeanBackward1", {r}, {},
               [sizes = DimVector(self.sizes()), dims, keepdim, count](
                   const autograd::Grads& g, const autograd::Saved&) {
                 return autograd::TensorList{unreduce(g[0], sizes, dims, keepdim) / count};
               });
  return r;
}

// all/any return bool, except for uint8 inputs, which give uint8 (as PyTorch does).
Tensor all_dims(const Tensor& self, IntArrayRef dims, bool keepdim) {
  const Tensor r = reduce("all", self.to(kBool), dims, keepdim, kBool, &ReduceKernels::amin);
  return self.dtype() == kUInt8 ? r.to(kUInt8) : r;
}
Tensor any_dims(const Tensor& self, IntArrayRef dims, bool keepdim) {
  const Tensor r = reduce("any", self.to(kBool), dims, keepdim, kBool, &ReduceKernels::amax);
  return self.dtype() == kUInt8 ? r.to(kUInt8) : r;
}

// (var or std, mean) over dims from one pass; the mean only if asked for.
std::tuple<Tensor, Tensor> var_impl(const Tensor& self, std::optional<IntArrayRef> dims_opt,
                                    int64_t correction, bool keepdim, bool take_sqrt,
                                    bool want_mean, const char* op) {
  EMBER_CHECK(self.is_floating_point(), op, "std and var only support floating point and ",
              "complex dtypes, got ", self.dtype());
  const backend::MomentsFn kernel =
      backend::kernel(op, self.device(), &Backend::reduce, &ReduceKernels::var);
  const DimVector dims = reduction_dims(dims_opt.value_or(IntArrayRef()), self.dim(), op);
  const DimVector flat = reduced_shape(self.sizes(), dims, false);
  const TensorOptions like{.dtype = self.dtype(), .device = self.device()};
  Tensor var = empty(flat, like);
  Tensor mean = want_mean ? empty(flat, like) : Tensor();
  kernel({op, var, mean, self, dims, correction, take_sqrt});
  if (!keepdim) return {var, mean};
  const DimVector kept = reduced_shape(self.sizes(), dims, true);
  return {var.view(kept), want_mean ? mean.view(kept) : mean};
}

// ── backward formulas (PyTorch 1.13's FunctionsManual.cpp), in differentiable ops ──────────

int64_t count_of(IntArrayRef sizes, IntArrayRef dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= sizes[size_t(d)];
  return n;
}

// Gradient of a product along `dim` when the input holds zeros: the product of every other
// element, from exclusive cumulative products taken from both ends.
Tensor prod_safe_zeros_backward(const Tensor& grad, const Tensor& input, int64_t dim) {
  const int64_t n = input.size(dim);
  if (n == 1) return grad;
  DimVector one(input.sizes());
  one[size_t(dim)] = 1;
  const Tensor ones_ = ones(one, {.dtype = input.dtype()});
  const Tensor before = cat({ones_, input.narrow(dim, 0, n - 1)}, dim).cumprod(dim);
  const Tensor after =
      flip(cat({ones_, flip(input.narrow(dim, 1, n - 1), {dim})}, dim).cumprod(dim), {dim});
  return grad * (before * after);
}

// prod over all dims (dims empty) or one dim.
Tensor prod_backward(const Tensor& grad, const Tensor& input, const Tensor& result,
                     std::optional<int64_t> dim, bool keepdim) {
  if (input.dim() == 0) return grad;
  const int64_t zeros_ = input.eq(0).sum().item<int64_t>();
  if (!dim) {
    if (zeros_ == 0) return grad * (result / input);
    if (zeros_ > 1) return zeros_like(input);
    return prod_safe_zeros_backward(grad, input.reshape({input.numel()}), 0).view(input.sizes());
  }
  const DimVector d{*dim};
  const Tensor g = keep_reduced(grad, input.sizes(), d, keepdim);
  if (zeros_ == 0) return g * (keep_reduced(result, input.sizes(), d, keepdim) / input);
  return prod_safe_zeros_backward(g, input, *dim);
}

Tensor prod_recorded(const Tensor& self, std::optional<int64_t> dim, bool keepdim,
                     std::optional<Dtype> dtype) {
  Recorder rec("prod", {&self});
  if (rec.autocast()) return prod_recorded(rec.cast(0), dim, keepdim, dtype);
  const Dtype out = sum_dtype(self, dtype);
  const Tensor in = out == self.dtype() || !is_floating_point(out) ? self : self.to(out);
  Tensor r = dim ? reduce("prod", in, {*dim}, keepdim, out, &ReduceKernels::prod)
                 : reduce("prod", in, {}, false, out, &ReduceKernels::prod);
  if (rec) {
    const std::optional<int64_t> d =
        dim ? std::optional<int64_t>(self.dim() == 0 ? 0 : wrap_dim(*dim, self.dim(), "prod"))
            : std::nullopt;
    rec.record(dim ? "ProdBackward1" : "ProdBackward0", {r}, {self},
               [d, keepdim](const Grads& g, const Saved& s) {
                 return TensorList{prod_backward(g[0], s[0], s[1], d, keepdim)};
               },
               {r});
  }
  return r;
}

// amax/amin (and max()/min(), evenly among NaN too). Saved: {self}, {result}.
Tensor extremum_recorded(const Tensor& self, IntArrayRef dims_in, bool keepdim, bool is_max,
                         const char* node) {
  Recorder rec(is_max ? "amax" : "amin", {&self});
  Tensor r = is_max ? reduce("amax", self, dims_in, keepdim, self.dtype(), &ReduceKernels::amax)
                    : reduce("amin", self, dims_in, keepdim, self.dtype(), &ReduceKernels::amin);
  if (rec) {
    const bool whole = std::string_view(node) == "MaxBackward1" ||
                       std::string_view(node) == "MinBackward1";
    rec.record(node, {r}, {self},
               [whole, keepdim, dims = reduction_dims(dims_in, self.dim(), "amax")](
                   const Grads& g, const Saved& s) {
                 if (whole) return TensorList{evenly_distribute_backward(g[0], s[0], s[1])};
                 // scale_grad_by_count: the gradient shared among the ties of each slice.
                 const Tensor mask = s[0].eq(keep_reduced(s[1], s[0].sizes(), dims, keepdim));
                 const Tensor gk = keep_reduced(g[0], s[0].sizes(), dims, keepdim);
                 return TensorList{(gk / mask.sum(IntArrayRef(dims), true)) * mask};
               },
               {r});
  }
  return r;
}

// var/std (and the _mean forms): grads {var or std, mean}.
Tensor var_backward(const Tensor& grad, const Tensor& self, IntArrayRef dims, int64_t correction,
                    bool keepdim) {
  const int64_t n = count_of(self.sizes(), dims);
  const Tensor g = keep_reduced(grad, self.sizes(), dims, keepdim);
  return (2.0 / double(n - correction)) * g * (self - self.mean(dims, true));
}

Tensor std_backward(const Tensor& result, const Tensor& grad, const Tensor& self, IntArrayRef dims,
                    int64_t correction, bool keepdim) {
  const Tensor grad_var = (grad / (result * 2)).masked_fill(result.eq(0), 0);
  return var_backward(grad_var, self, dims, correction, keepdim);
}

std::tuple<Tensor, Tensor> var_recorded(const Tensor& self, std::optional<IntArrayRef> dims_opt,
                                        int64_t correction, bool keepdim, bool take_sqrt,
                                        bool want_mean, const char* op) {
  Recorder rec(op, {&self});
  auto [v, m] = var_impl(self, dims_opt, correction, keepdim, take_sqrt, want_mean, op);
  if (rec) {
    const char* node = want_mean ? (take_sqrt ? "StdMeanBackward0" : "VarMeanBackward0")
                                 : (take_sqrt ? "StdBackward0" : "VarBackward0");
    const DimVector dims = reduction_dims(dims_opt.value_or(IntArrayRef()), self.dim(), op);
    auto fn = [dims, correction, keepdim, take_sqrt](const Grads& g, const Saved& s) {
      const Tensor& self = s[0];
      Tensor gi;
      if (g[0].defined())
        gi = take_sqrt ? std_backward(s[1], g[0], self, dims, correction, keepdim)
                       : var_backward(g[0], self, dims, correction, keepdim);
      if (g.size() > 1 && g[1].defined()) {
        const Tensor gm =
            unreduce(g[1], self.sizes(), dims, keepdim) / double(count_of(self.sizes(), dims));
        gi = gi.defined() ? gi + gm : gm;
      }
      return TensorList{gi};
    };
    if (want_mean)
      rec.record(node, std::vector<Tensor>{v, m}, {self}, fn, {v});
    else
      rec.record(node, {v}, {self}, fn, {v});
  }
  return {v, m};
}

// norm_backward of PyTorch 1.13 (p = 0, 1, 2, +-inf, and the general p branches).
Tensor norm_backward(Tensor grad, const Tensor& self, double p, Tensor norm, IntArrayRef dims,
                     bool keepdim) {
  grad = keep_reduced(grad, self.sizes(), dims, keepdim);
  norm = keep_reduced(norm, self.sizes(), dims, keepdim);
  if (p == 0) return Tensor();
  if (p == 1) return self.sign() * grad;
  if (p == 2) return grad * (self / norm).masked_fill(norm.eq(0), 0);
  if (std::isinf(p)) {
    const Tensor self_abs = self.abs();
    const Tensor mask = logical_or(self_abs.eq(norm), self_abs.isnan());
    return self.sign() * ((grad / mask.sum(dims, true)) * mask);
  }
  if (p < 1) {
    const Tensor self_scaled = self.sign() * self.abs().pow(p - 1).masked_fill(self.eq(0), 0);
    return self_scaled * grad * norm.pow(1 - p);
  }
  const Tensor self_scaled = p < 2 ? self.sign() * self.abs().pow(p - 1)
                                   : self * self.abs().pow(p - 2);
  const Tensor scale_v = (grad / norm.pow(p - 1)).masked_fill(norm.eq(0), 0);
  return self_scaled * scale_v;
}

Tensor vector_norm_impl(const Tensor& self, double p, IntArrayRef dims_in, bool keepdim);

Tensor norm_recorded(const Tensor& self, double p, IntArrayRef dims_in, bool keepdim,
                     const char* node) {
  Recorder rec("norm", {&self});
  Tensor r = vector_norm_impl(self, p, dims_in, keepdim);
  if (rec)
    rec.record(node, {r}, {self},
               [p, keepdim, dims = reduction_dims(dims_in, self.dim(), "norm")](const Grads& g,
                                                                                const Saved& s) {
                 return TensorList{norm_backward(g[0], s[0], p, s[1], dims, keepdim)};
               },
               {r});
  return r;
}

}  // namespace

// ── public functions and methods ────────────────────────────────────────
Tensor Tensor::sum(std::optional<Dtype> dtype) const {
  return sum_impl(*this, {}, false, dtype, "SumBackward0");
}
Tensor Tensor::sum(IntArrayRef dims, bool keepdim, std::optional<Dtype> dtype) const {
  return sum_impl(*this, dims, keepdim, dtype, "SumBackward1");
}
Tensor Tensor::sum(int64_t dim, bool keepdim, std::optional<Dtype> dtype) const {
  return sum_impl(*this, {dim}, keepdim, dtype, "SumBackward1");
}
Tensor Tensor::nansum(std::optional<Dtype> dtype) const { return nansum({}, false, dtype); }
Tensor Tensor::nansum(IntArrayRef dims, bool keepdim, std::optional<Dtype> dtype) const {
  const Dtype out = sum_dtype(*this, dtype);
  const Tensor in = ember::is_floating_point(out) && dtype && *dtype != this->dtype() ? to(out) : *this;
  if (!ember::is_floating_point(in.dtype())) return sum_impl(in, dims, keepdim, dtype, "SumBackward1");
  autograd::Recorder rec("nansum", {this});
  Tensor r = reduce("nansum", in, dims, keepdim, out, &ReduceKernels::nansum);
  if (rec)
    rec.record("NansumBackward0", {r}, {*this},
               [d = reduction_dims(dims, this->dim(), "nansum"), keepdim](
                   const autograd::Grads& g, const autograd::Saved& s) {
                 return autograd::TensorList{unreduce(g[0], s[0].sizes(), d, keepdim) *
                                             s[0].isnan().logical_not()};
               });
  return r;
}
Tensor Tensor::mean(std::optional<Dtype> dtype) const {
  return mean_impl(*this, {}, false, dtype, "mean");
}
Tensor Tensor::mean(IntArrayRef dims, bool keepdim, std::optional<Dtype> dtype) const {
  return mean_impl(*this, dims, keepdim, dtype, "mean");
}
Tensor Tensor::mean(int64_t dim, bool keepdim, std::optional<Dtype> dtype) const {
  return mean_impl(*this, {dim}, keepdim, dtype, "mean");
}
Tensor Tensor::nanmean(std::optional<IntArrayRef> dims, bool keepdim) const {
  EMBER_CHECK(is_floating_point(), "nanmean", "expected a floating point tensor, got ", dtype());
  const IntArrayRef d = dims.value_or(IntArrayRef());
  const Tensor counts = ember::logical_not(isnan()).sum(d, keepdim);
  return nansum(d, keepdim).div(counts);
}
Tensor Tensor::prod(std::optional<Dtype> dtype) const {
  return prod_recorded(*this, std::nullopt, false, dtype);
}
Tensor Tensor::prod(int64_t dim, bool keepdim, std::optional<Dtype> dtype) const {
  return prod_recorded(*this, dim, keepdim, dtype);
}
Tensor Tensor::amax(IntArrayRef dims, bool keepdim) const {
  check_nonempty(*this, dims, "amax");
  return extremum_recorded(*this, dims, keepdim, true, "AmaxBackward0");
}
Tensor Tensor::amin(IntArrayRef dims, bool keepdim) const {
  check_nonempty(*this, dims, "amin");
  return extremum_recorded(*this, dims, keepdim, false, "AminBackward0");
}
Tensor Tensor::max() const {
  EMBER_CHECK(numel() > 0, "max", "max(): Expected reduction dim to be specified for "
              "input.numel() == 0. Specify the reduction dim with the 'dim' argument.");
  return extremum_recorded(*this, {}, false, true, "MaxBackward1");
}
Tensor Tensor::min() const {
  EMBER_CHECK(numel() > 0, "min", "min(): Expected reduction dim to be specified for "
              "input.numel() == 0. Specify the reduction dim with the 'dim' argument.");
  return extremum_recorded(*this, {}, false, false, "MinBackward1");
}
Tensor Tensor::all() const { return all_dims(*this, {}, false); }
Tensor Tensor::all(int64_t dim, bool keepdim) const { return all_dims(*this, {dim}, keepdim); }
Tensor Tensor::any() const { return any_dims(*this, {}, false); }
Tensor Tensor::any(int64_t dim, bool keepdim) const { return any_dims(*this, {dim}, keepdim); }
Tensor Tensor::count_nonzero(std::optional<IntArrayRef> dims) const {
  return reduce("count_nonzero", ne(0), dims.value_or(IntArrayRef()), false, kInt64,
                &ReduceKernels::sum);
}

Tensor Tensor::var(std::optional<IntArrayRef> dims, int64_t correction, bool keepdim) const {
  return std::get<0>(var_recorded(*this, dims, correction, keepdim, false, false, "var"));
}
Tensor Tensor::var(int64_t dim, int64_t correction, bool keepdim) const {
  return std::get<0>(var_recorded(*this, IntArrayRef({dim}), correction, keepdim, false, false, "var"));
}
Tensor Tensor::std(std::optional<IntArrayRef> dims, int64_t correction, bool keepdim) const {
  return std::get<0>(var_recorded(*this, dims, correction, keepdim, true, false, "std"));
}
Tensor Tensor::std(int64_t dim, int64_t correction, bool keepdim) const {
  return std::get<0>(var_recorded(*this, IntArrayRef({dim}), correction, keepdim, true, false, "std"));
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& t, std::optional<IntArrayRef> dims,
                                    int64_t correction, bool keepdim) {
  return var_recorded(t, dims, correction, keepdim, false, true, "var_mean");
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& t, std::optional<IntArrayRef> dims,
                                    int64_t correction, bool keepdim) {
  return var_recorded(t, dims, correction, keepdim, true, true, "std_mean");
}

std::tuple<Tensor, Tensor> aminmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  if (dim) check_nonempty(self, {*dim}, "aminmax");
  EMBER_CHECK(dim || self.numel() > 0, "aminmax", "cannot compute aminmax over an empty ",
              "dimension as the operation has no identity.");
  const backend::MinMaxFn kernel =
      backend::kernel("aminmax", self.device(), &Backend::reduce, &ReduceKernels::aminmax);
  const DimVector dims = reduction_dims(dim ? IntArrayRef({*dim}) : IntArrayRef(), self.dim(),
                                        "aminmax");
  const DimVector flat = reduced_shape(self.sizes(), dims, false);
  const TensorOptions like{.dtype = self.dtype(), .device = self.device()};
  Tensor lo = empty(flat, like), hi = empty(flat, like);
  kernel("aminmax", lo, hi, self, dims);
  if (!keepdim) return {lo, hi};
  const DimVector kept = reduced_shape(self.sizes(), dims, true);
  return {lo.view(kept), hi.view(kept)};
}

namespace {
Tensor vector_norm_impl(const Tensor& self, double p, IntArrayRef dims, bool keepdim) {
  EMBER_CHECK(self.is_floating_point(), "linalg.vector_norm", "expected a floating point ",
              "input, got ", self.dtype());
  if (std::isinf(p) && self.numel() == 0) check_nonempty(self, dims, "linalg.vector_norm");
  if (p == 0) return self.ne(0).sum(dims, keepdim, self.dtype());
  return reduce("norm", self, dims, keepdim, self.dtype(), &ReduceKernels::norm, p);
}
}  // namespace

Tensor linalg_vector_norm(const Tensor& self, double p, IntArrayRef dims, bool keepdim) {
  return norm_recorded(self, p, dims, keepdim, "LinalgVectorNormBackward0");
}

Tensor Tensor::norm(Scalar p) const {
  return norm_recorded(*this, p.to_double(), {}, false, "NormBackward1");
}
Tensor Tensor::norm(Scalar p, IntArrayRef dims, bool keepdim) const {
  return norm_recorded(*this, p.to_double(), dims, keepdim, "NormBackward1");
}
Tensor Tensor::norm(Scalar p, int64_t dim, bool keepdim) const {
  return norm_recorded(*this, p.to_double(), {dim}, keepdim, "NormBackward1");
}

}  // namespace ember
