// nn.functional's embedding (with max_norm renormalising rows in place) and its dense weight
// gradient. The kernels are the backend's embedding family (backend/embedding_kernels.h).
#include "ops/embedding.h"

#include "autograd/function.h"
#include "backend/embedding_kernels.h"
#include "backend/family_kernel.h"
#include "ember/creation.h"
#include "ember/math.h"
#include "ember/nn/functional/layers.h"
#include "ops/nn_grad.h"
#include "ops/opmath.h"

namespace ember::nn::functional {

namespace {

using backend::EmbeddingKernels;

// Entry `entry` of t's device's embedding kernels.
template <class Fn>
Fn embedding_kernel_of(const char* op, const Tensor& t, Fn EmbeddingKernels::*entry) {
  return backend::kernel(op, t.device(), &backend::Backend::embedding, entry);
}

// The indices as the kernels read them: int64, contiguous (the kernels check their range).
Tensor kernel_indices(const Tensor& indices, const char* op) {
  EMBER_CHECK(indices.dtype() == kInt64 || indices.dtype() == kInt32, op,
              "Expected tensor for argument #1 'indices' to have one of the following scalar ",
              "types: Long, Int; but got ", indices.dtype(), " instead (while checking ",
              "arguments for embedding)");
  return indices.to(kInt64).contiguous();
}

}  // namespace

namespace {
Tensor embedding_impl(const Tensor& input, const Tensor& weight, EmbeddingFuncOptions o);

// d(embedding)/d(weight) applied to grad: the kernel, recorded as a linear op whose adjoint reads
// rows of gg back at the indices (zero at padding_idx, scaled by 1 / count when
// scale_grad_by_freq), so double backward works.
Tensor embedding_weight_grad(const Tensor& grad, const Tensor& indices, int64_t num,
                             const EmbeddingFuncOptions& o) {
  return linear_grad(
      "EmbeddingDenseBackwardBackward0", grad,
      [&](const Tensor& g) {
        return embedding_backward(g, indices, num, o.padding_idx, o.scale_grad_by_freq);
      },
      [indices, num, o](const Tensor& gg) {
        Tensor rows = embedding(indices, gg);
        if (!o.padding_idx && !o.scale_grad_by_freq) return rows;
        // The per-position factor of the scatter, as a constant column.
        const Dtype dt = gg.dtype();
        Tensor factor = ones(indices.sizes(), {.dtype = dt}).unsqueeze(-1);
        if (o.padding_idx) {
          const int64_t pad = *o.padding_idx < 0 ? *o.padding_idx + num : *o.padding_idx;
          factor = indices.ne(pad).to(dt).unsqueeze(-1);
        }
        if (o.scale_grad_by_freq) {
          const Tensor unit = ones(indices.sizes(), {.dtype = dt}).unsqueeze(-1);
          const Tensor counts = embedding_backward(unit, indices, num, std::nullopt, false);
          factor = factor / embedding(indices, counts);
        }
        return rows * factor;
      });
}
}  // namespace

// Autograd: EmbeddingBackward0 to the weight (the indices get no gradient).
Tensor embedding(const Tensor& input, const Tensor& weight, EmbeddingFuncOptions o) {
  autograd::Recorder rec("embedding", {&weight});
  Tensor out = embedding_impl(input, weight, o);
  if (rec)
    rec.record("EmbeddingBackward0", {out}, {input},
               [num = weight.size(0), o](const autograd::Grads& g, const autograd::Saved& s) {
                 return autograd::TensorList{embedding_weight_grad(g[0], s[0], num, o)};
               });
  return out;
}

namespace {
Tensor embedding_impl(const Tensor& input, const Tensor& weight, EmbeddingFuncOptions o) {
  const char* op = "embedding";
  const auto kernel = embedding_kernel_of(op, weight, &EmbeddingKernels::embedding);
  EMBER_CHECK(weight.dim() == 2, op, "'weight' must be 2-D");
  const int64_t num = weight.size(0), D = weight.size(1);
  if (o.padding_idx) {
    // Checked like PyTorch even though the forward ignores it (it masks the gradient).
    EMBER_CHECK(*o.padding_idx < num && *o.padding_idx >= -num, op,
                "Padding_idx must be within num_embeddings");
  }
  const Tensor idx = kernel_indices(input, op);
  if (o.max_norm)
    embedding_kernel_of(op, weight, &EmbeddingKernels::embedding_renorm)(op, weight, idx,
                                                                         *o.max_norm, o.norm_type);
  const Tensor w = weight.contiguous();
  DimVector out_shape(input.sizes());
  out_shape.push_back(D);
  Tensor out = empty(out_shape, {.dtype = weight.dtype(), .device = weight.device()});
  kernel(op, out, w, idx);
  return out;
}
}  // namespace

Tensor embedding_backward(const Tensor& grad_out, const Tensor& indices, int64_t num_weights,
                          std::optional<int64_t> padding_idx, bool scale_grad_by_freq) {
  const char* op = "embedding_backward";
  const auto kernel = embedding_kernel_of(op, grad_out, &EmbeddingKernels::embedding_backward);
  const Tensor idx = kernel_indices(indices, op);
  const int64_t D = grad_out.size(-1), n = idx.numel();
  const int64_t pad =
      padding_idx ? (*padding_idx < 0 ? *padding_idx + num_weights : *padding_idx) : -1;
  const Dtype cd = opmath_dtype(grad_out.dtype());
  const Tensor g = grad_out.to(cd).contiguous().view({n, D});
  Tensor gw = zeros({num_weights, D}, {.dtype = cd, .device = grad_out.device()});
  kernel(op, gw, g, idx, pad, scale_grad_by_freq);
  return gw.to(grad_out.dtype());
}

}  // namespace ember::nn::functional
