// softmax and log_softmax along one dim, with their backward formulas; the kernels are the
// backend's softmax family (backend/softmax_kernels.h), whose fused backwards (CUDA's) replace
// the formulas where the device has them and no graph of the backward is wanted.
#include "backend/family_kernel.h"
#include "ember/creation.h"
#include "ember/math.h"
#include "ember/shape.h"
#include "ops/op_prelude.h"

namespace ember {
namespace {

using backend::Backend;
using backend::SoftmaxKernels;

template <bool Log>
Tensor softmax_impl(const Tensor& self, int64_t dim, std::optional<Dtype> dtype, const char* op) {
  Tensor x = dtype ? self.to(*dtype) : self;
  EMBER_CHECK(x.is_floating_point(), op, "not implemented for dtype ", x.dtype());
  const backend::SoftmaxFn kernel = backend::kernel(
      op, x.device(), &Backend::softmax, Log ? &SoftmaxKernels::log_softmax : &SoftmaxKernels::softmax);
  const Dtype out_dtype = x.dtype();
  if (out_dtype == kFloat16 || out_dtype == kBFloat16) x = x.to(kFloat32);  // compute in float
  dim = wrap_dim(dim, x.dim(), op);
  x = x.contiguous();
  Tensor y = empty(x.sizes(), {.dtype = x.dtype(), .device = x.device()});
  kernel(op, y, x, x.dim() == 0 ? 0 : dim);
  return y.dtype() == out_dtype ? y : y.to(out_dtype);
}

// The gradient along d (wrapped; 0 for a 0-d y) from the forward's output y. The formula in
// differentiable ops is the reference and what double backward records; without create_graph a
// device's fused kernel replaces it (one pass over each line instead of four elementwise and
// reduction launches).
Tensor softmax_backward(const Tensor& g, const Tensor& y, int64_t d, bool log) {
  using backend::SoftmaxKernels;
  const backend::SoftmaxBackwardFn fused = backend::optional_kernel(
      y.device(), &Backend::softmax,
      log ? &SoftmaxKernels::log_softmax_backward : &SoftmaxKernels::softmax_backward);
  if (fused && !is_grad_enabled()) {
    const Tensor gc = g.to(y.dtype()).contiguous(), yc = y.contiguous();
    Tensor dx = empty(yc.sizes(), {.dtype = yc.dtype(), .device = yc.device()});
    fused(log ? "log_softmax_backward" : "softmax_backward", dx, gc, yc, d);
    return dx;
  }
  return log ? g - y.exp() * g.sum(d, true) : y * (g - (g * y).sum(d, true));
}

Tensor softmax_recorded(const Tensor& self, int64_t dim, std::optional<Dtype> dtype, bool log) {
  const char* op = log ? "log_softmax" : "softmax";
  Recorder rec(op, {&self});
  Tensor y = log ? softmax_impl<true>(self, dim, dtype, op) : softmax_impl<false>(self, dim, dtype, op);
  if (rec) {
    const int64_t d = self.dim() == 0 ? 0 : wrap_dim(dim, self.dim(), op);
    rec.record(log ? "LogSoftmaxBackward0" : "SoftmaxBackward0", {y}, {},
               [d, log](const Grads& g, const Saved& s) {
                 return TensorList{softmax_backward(g[0], s[0], d, log)};
               },
               {y});
  }
  return y;
}

}  // namespace

Tensor softmax(const Tensor& t, int64_t dim, std::optional<Dtype> dtype) {
  return softmax_recorded(t, dim, dtype, false);
}
Tensor log_softmax(const Tensor& t, int64_t dim, std::optional<Dtype> dtype) {
  return softmax_recorded(t, dim, dtype, true);
}
Tensor Tensor::softmax(int64_t dim, std::optional<Dtype> dtype) const {
  return softmax_recorded(*this, dim, dtype, false);
}
Tensor Tensor::log_softmax(int64_t dim, std::optional<Dtype> dtype) const {
  return softmax_recorded(*this, dim, dtype, true);
}

}  // namespace ember
