// The scans cumsum and cumprod along one dim, with their backward formulas; the kernels are the
// backend's scan family (backend/scan_kernels.h).
#include "backend/family_kernel.h"
#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/math.h"
#include "ember/shape.h"
#include "ops/op_prelude.h"

namespace ember {
namespace {

using backend::Backend;
using backend::ScanKernels;

template <bool Prod>
Tensor scan_impl(const Tensor& self, int64_t dim, std::optional<Dtype> dtype, const char* op) {
  const backend::ScanFn kernel = backend::kernel(
      op, self.device(), &Backend::scan, Prod ? &ScanKernels::cumprod : &ScanKernels::cumsum);
  // Integers accumulate into int64, as PyTorch's cumsum/cumprod.
  const Dtype out_dtype = dtype.value_or(is_integral(self.dtype(), true) ? kInt64 : self.dtype());
  const Tensor x = self.to(out_dtype).contiguous();
  dim = wrap_dim(dim, x.dim(), op);
  Tensor y = empty(x.sizes(), {.dtype = out_dtype, .device = x.device()});
  kernel(op, y, x, x.dim() == 0 ? 0 : dim);
  return y;
}

// sum_{j >= i} w_j along dim, without a flip: total - inclusive prefix + w.
Tensor reversed_cumsum(const Tensor& w, int64_t dim) {
  if (w.dim() == 0) return w;
  return w.sum(dim, true) - w.cumsum(dim) + w;
}

// With zeros and create_graph, PyTorch's O(n²) form, whose own derivative is right:
// grad_input[k] = Σ_{j ≥ k} grad[j] Π_{i ≤ j, i ≠ k} input[i], from differentiable ops (row k of
// `others` is the cumulative product with input[k] read as 1).
Tensor cumprod_backward_differentiable(const Tensor& grad, const Tensor& input, int64_t dim) {
  const int64_t n = input.size(dim);
  const Tensor x = input.transpose(dim, -1), g = grad.transpose(dim, -1);
  const Tensor k = arange(n, {.dtype = kInt64});
  const Tensor others = where(eye(n, {.dtype = kBool}), 1.0, x.unsqueeze(-2)).cumprod(-1);
  const Tensor upper = k.unsqueeze(1).le(k.unsqueeze(0));  // [k, j]: j >= k
  return (others * g.unsqueeze(-2) * upper).sum(-1).transpose(dim, -1);
}

// PyTorch's cumprod_backward: without zeros, reversed_cumsum(grad * output) / input; with
// zeros, only the elements up to each line's first zero get a gradient: before it the same
// formula, at it the products of the others (the cumulative product with that zero taken as 1).
Tensor cumprod_backward(const Tensor& grad, const Tensor& input, int64_t dim, const Tensor& output) {
  if (input.numel() <= 1 || input.dim() == 0) return grad;
  const Tensor is_zero = input.eq(0);
  if (!is_zero.any().item<bool>()) return reversed_cumsum(grad * output, dim).div(input);
  if (is_grad_enabled()) return cumprod_backward_differentiable(grad, input, dim);
  const Tensor zeros_so_far = is_zero.cumsum(dim);                       // int64
  const Tensor before = zeros_so_far.eq(0);                              // before the first zero
  const Tensor first_zero = logical_and(is_zero, zeros_so_far.eq(1));
  const Tensor safe = where(before, input, 1.0);
  const Tensor part_before = where(before, reversed_cumsum(grad * output, dim) / safe, 0.0);
  const Tensor others = where(first_zero, 1.0, input).cumprod(dim);  // the first zero as 1
  const Tensor part_zero = where(first_zero, reversed_cumsum(grad * others * logical_not(before), dim), 0.0);
  return part_before + part_zero;
}

Tensor scan_recorded(const Tensor& self, int64_t dim, std::optional<Dtype> dtype, bool prod) {
  const char* op = prod ? "cumprod" : "cumsum";
  Recorder rec(op, {&self});
  Tensor y = prod ? scan_impl<true>(self, dim, dtype, op) : scan_impl<false>(self, dim, dtype, op);
  if (rec) {
    const int64_t d = self.dim() == 0 ? 0 : wrap_dim(dim, self.dim(), op);
    if (prod)
      rec.record("CumprodBackward0", {y}, {self},
                 [d](const Grads& g, const Saved& s) {
                   return TensorList{cumprod_backward(g[0], s[0], d, s[1])};
                 },
                 {y});
    else
      rec.record("CumsumBackward0", {y}, {}, [d](const Grads& g, const Saved&) {
        return TensorList{reversed_cumsum(g[0], d)};
      });
  }
  return y;
}

}  // namespace

Tensor Tensor::cumsum(int64_t dim, std::optional<Dtype> dtype) const {
  return scan_recorded(*this, dim, dtype, false);
}
Tensor Tensor::cumprod(int64_t dim, std::optional<Dtype> dtype) const {
  return scan_recorded(*this, dim, dtype, true);
}

}  // namespace ember
