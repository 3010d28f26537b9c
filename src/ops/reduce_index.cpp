// Reductions that also return positions: max/min along a dim -> (values, indices), argmax,
// argmin; and logsumexp, which needs two passes (max, then the shifted sum).
// PyTorch's rules: the first occurrence wins ties; NaN counts as the maximum (and minimum); the
// kernels are the backend's ReduceKernels::max_dim/min_dim (backend/reduce_kernels.h).
#include <cmath>
#include <limits>

#include "autograd/function.h"
#include "backend/family_kernel.h"
#include "ember/creation.h"
#include "ember/math.h"
#include "ember/shape.h"
#include "ops/reduce.h"

namespace ember {
namespace {

// Moves `dim` last and makes the result contiguous: (M, D) rows, one per output.
Tensor rows_along(const Tensor& self, int64_t dim) {
  return self.dim() == 0 ? self.reshape({1, 1}) : self.movedim(dim, -1).contiguous();
}

template <bool Max>
std::tuple<Tensor, Tensor> arg_reduce(const Tensor& self, int64_t dim, bool keepdim,
                                      const char* op) {
  const backend::ArgReduceFn kernel =
      backend::kernel(op, self.device(), &backend::Backend::reduce,
                      Max ? &backend::ReduceKernels::max_dim : &backend::ReduceKernels::min_dim);
  dim = wrap_dim(dim, self.dim(), op);
  const int64_t D = self.dim() == 0 ? 1 : self.sizes()[dim];
  EMBER_CHECK(D > 0, op, "Expected reduction dim ", dim, " to have non-zero size.");
  const Tensor rows = rows_along(self, dim);
  const DimVector shape = reduced_shape(self.sizes(), DimVector{dim}, false);
  Tensor values = empty(shape, {.dtype = self.dtype(), .device = self.device()});
  Tensor indices = empty(shape, {.dtype = kInt64, .device = self.device()});
  kernel(op, values, indices, rows);
  if (keepdim && self.dim() > 0) {
    const DimVector kshape = reduced_shape(self.sizes(), DimVector{dim}, true);
    return {values.view(kshape), indices.view(kshape)};
  }
  return {values, indices};
}

int64_t dim_or_zero(const Tensor& t) { return t.dim(); }

Tensor logsumexp_forward(const Tensor& self, IntArrayRef dims, bool keepdim);

}  // namespace

namespace {
// max/min along a dim: the gradient goes to the index returned (MaxBackward0 / MinBackward0).
template <bool Max>
std::tuple<Tensor, Tensor> arg_reduce_recorded(const Tensor& self, int64_t dim, bool keepdim) {
  const char* op = Max ? "max" : "min";
  autograd::Recorder rec(op, {&self});
  auto [values, indices] = arg_reduce<Max>(self, dim, keepdim, op);
  if (rec)
    rec.record(Max ? "MaxBackward0" : "MinBackward0", {values}, {indices},
               [d = self.dim() == 0 ? int64_t(0) : wrap_dim(dim, self.dim(), op), keepdim,
                sizes = DimVector(self.sizes())](const autograd::Grads& g,
                                                 const autograd::Saved& s) {
                 return autograd::TensorList{value_selecting_backward(g[0], d, s[0], sizes, keepdim)};
               });
  return {values, indices};
}
}  // namespace

std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const {
  return arg_reduce_recorded<true>(*this, dim, keepdim);
}
std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const {
  return arg_reduce_recorded<false>(*this, dim, keepdim);
}
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const {
  if (!dim) {
    EMBER_CHECK(numel() > 0, "argmax", "Expected reduction dim to be specified for "
                "input.numel() == 0.");
    Tensor idx = std::get<1>(arg_reduce<true>(reshape({-1}), 0, false, "argmax"));
    return keepdim ? idx.view(DimVector(size_t(dim_or_zero(*this)), 1)) : idx;
  }
  return std::get<1>(arg_reduce<true>(*this, *dim, keepdim, "argmax"));
}
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const {
  if (!dim) {
    EMBER_CHECK(numel() > 0, "argmin", "Expected reduction dim to be specified for "
                "input.numel() == 0.");
    Tensor idx = std::get<1>(arg_reduce<false>(reshape({-1}), 0, false, "argmin"));
    return keepdim ? idx.view(DimVector(size_t(dim_or_zero(*this)), 1)) : idx;
  }
  return std::get<1>(arg_reduce<false>(*this, *dim, keepdim, "argmin"));
}

Tensor Tensor::logsumexp(IntArrayRef dims, bool keepdim) const {
  autograd::Recorder rec("logsumexp", {this});
  Tensor r = logsumexp_forward(*this, dims, keepdim);
  if (rec)
    rec.record("LogsumexpBackward0", {r}, {*this},
               [d = reduction_dims(dims, this->dim(), "logsumexp"), keepdim](
                   const autograd::Grads& g, const autograd::Saved& s) {
                 const Tensor& self = s[0];
                 return autograd::TensorList{
                     keep_reduced(g[0], self.sizes(), d, keepdim) *
                     (self - keep_reduced(s[1], self.sizes(), d, keepdim)).exp()};
               },
               {r});
  return r;
}

namespace {
Tensor logsumexp_forward(const Tensor& self, IntArrayRef dims, bool keepdim) {
  const Dtype out_dtype = self.is_floating_point() ? self.dtype() : default_dtype();
  // float16/bfloat16 are computed in float and rounded once, not after every step.
  const Dtype compute = out_dtype == kFloat16 || out_dtype == kBFloat16 ? kFloat32 : out_dtype;
  const Tensor x = self.to(compute);
  const DimVector d = reduction_dims(dims, x.dim(), "logsumexp");
  if (x.numel() == 0) return ember::log(x.exp().sum(d, keepdim)).to(out_dtype);
  // Shift by the max so exp never overflows; an infinite max is left unshifted (as PyTorch).
  Tensor m = x.amax(d, /*keepdim=*/true);
  m = ember::where(m.isinf(), zeros_like(m), m);
  Tensor out = ember::log((x - m).exp().sum(d, /*keepdim=*/true)) + m;
  return (keepdim ? out : out.squeeze(d)).to(out_dtype);
}
}  // namespace
Tensor Tensor::logsumexp(int64_t dim, bool keepdim) const {
  return logsumexp(IntArrayRef({dim}), keepdim);
}

}  // namespace ember

