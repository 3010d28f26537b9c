// softmax and log_softmax along one dim, with their backward formulas; the kernels are the
// backend's softmax family (backend/softmax_kernels.h).
#include "autograd/function.h"
#include "backend/family_kernel.h"
#include "ember/creation.h"
#include "ember/math.h"
#include "ember/shape.h"

namespace ember {
namespace {

using autograd::Grads;
using autograd::Recorder;
using autograd::Saved;
using autograd::TensorList;
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

// Backward formulas in differentiable ops (so double backward works); dims are wrapped, and a
// 0-d tensor is its own single-element line.
Tensor softmax_recorded(const Tensor& self, int64_t dim, std::optional<Dtype> dtype, bool log) {
  const char* op = log ? "log_softmax" : "softmax";
  Recorder rec(op, {&self});
  Tensor y = log ? softmax_impl<true>(self, dim, dtype, op) : softmax_impl<false>(self, dim, dtype, op);
  if (rec) {
    const int64_t d = self.dim() == 0 ? 0 : wrap_dim(dim, self.dim(), op);
    if (log)
      rec.record("LogSoftmaxBackward0", {y}, {},
                 [d](const Grads& g, const Saved& s) {
                   return TensorList{g[0] - s[0].exp() * g[0].sum(d, true)};
                 },
                 {y});
    else
      rec.record("SoftmaxBackward0", {y}, {},
                 [d](const Grads& g, const Saved& s) {
                   return TensorList{s[0] * (g[0] - (g[0] * s[0]).sum(d, true))};
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
