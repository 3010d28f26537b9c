// The layers of nn.functional that are not normalisation: dropout (element-wise and whole
// channels), embedding (with max_norm renormalising rows in place), linear, the math path of
// scaled_dot_product_attention, cosine_similarity and pairwise_distance.
#include "ops/dropout.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "autograd/function.h"
#include "backend/family_kernel.h"
#include "ember/creation.h"
#include "ember/index_ops.h"
#include "ember/linalg.h"
#include "ember/math.h"
#include "ember/nn/functional/layers.h"
#include "ember/promotion.h"
#include "ember/reduce.h"
#include "ember/shape.h"
#include "ops/nn_grad.h"
#include "ops/opmath.h"

namespace ember::nn::functional {

// ── dropout ──────────────────────────────────────────────────────────────
namespace {

using backend::RandomKernels;

// Entry `entry` of t's device's random kernels (null where the device has none: the caller asks).
template <class Fn>
Fn random_entry(const Tensor& t, Fn RandomKernels::*entry) {
  const backend::Backend* b = backend::backend_for(t.device().type());
  return b ? b->random.*entry : nullptr;
}

// native_dropout_backward: grad * mask * scale in the device's fused kernel. Linear in grad and
// its own adjoint, so double backward records it again (NativeDropoutBackwardBackward0).
Tensor native_dropout_backward(const Tensor& grad, const Tensor& mask, double scale) {
  return linear_grad(
      "NativeDropoutBackwardBackward0", grad,
      [&](const Tensor& g) {
        const char* op = "native_dropout_backward";
        Tensor dx = empty(g.sizes(), {.dtype = g.dtype(), .device = g.device()});
        backend::kernel(op, g.device(), &backend::Backend::random,
                        &RandomKernels::dropout_backward)(op, dx, g, mask, scale);
        return dx;
      },
      [mask, scale](const Tensor& gg) { return native_dropout_backward(gg, mask, scale); });
}

// PyTorch's native_dropout, which its dropout takes on CUDA (is_fused_kernel_acceptable: 0 < p
// < 1, not in place, not whole channels): one kernel draws the mask and scales the kept
// elements, and the backward reads the bool mask instead of a noise tensor of x's dtype.
std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p, Generator* gen) {
  const char* op = "native_dropout";
  autograd::Recorder rec(op, {&input});
  const auto kernel = random_entry(input, &RandomKernels::dropout);
  Tensor y = empty(input.sizes(), {.dtype = input.dtype(), .device = input.device()});
  Tensor mask = empty(input.sizes(), {.dtype = kBool, .device = input.device()});
  kernel(op, y, mask, input, p, gen);
  if (rec)
    rec.record("NativeDropoutBackward0", {y}, {mask},
               [scale = 1 / (1 - p)](const autograd::Grads& g, const autograd::Saved& s) {
                 return autograd::TensorList{native_dropout_backward(g[0], s[0], scale)};
               });
  return {y, mask};
}

}  // namespace

std::tuple<Tensor, Tensor> dropout_forward(const Tensor& input, double p, bool training,
                                           bool feature, bool inplace, Generator* gen) {
  const char* op = feature ? "feature_dropout" : "dropout";
  EMBER_CHECK(p >= 0 && p <= 1, op, "dropout probability has to be between 0 and 1, but got ",
              p);
  EMBER_CHECK(!feature || input.dim() >= 2, op,
              "Feature dropout requires at least 2 dimensions in the input");
  if (p == 0 || !training || input.numel() == 0) return {input, Tensor()};
  if (!feature && !inplace && p < 1 && random_entry(input, &RandomKernels::dropout))
    return native_dropout(input, p, gen);
  Tensor self = input;  // a handle, so the in-place forms can write through it
  // Whole channels share one draw: the noise is (N, C, 1, ..., 1) and broadcasts.
  DimVector noise_shape(input.sizes());
  if (feature)
    for (size_t d = 2; d < noise_shape.size(); ++d) noise_shape[d] = 1;
  const TensorOptions noise_options{.dtype = input.dtype(), .device = input.device()};
  Tensor noise;
  if (p == 1) {
    // PyTorch multiplies by zero rather than filling, so NaN and inf inputs give NaN.
    noise = zeros(noise_shape, noise_options);
  } else {
    noise = empty(noise_shape, noise_options);
    bernoulli_(noise, 1 - p, gen);
    noise.div_(1 - p);
  }
  if (inplace) return {self.mul_(noise), noise};
  return {input * noise, noise};
}

Tensor dropout(const Tensor& input, DropoutFuncOptions o) {
  return std::get<0>(dropout_forward(input, o.p, o.training, false, o.inplace, o.generator));
}

Tensor dropout2d(const Tensor& input, DropoutFuncOptions o) {
  // PyTorch 1.13 reads a 3-D input as (N, C, L) (channel-wise 1-D dropout), any rank >= 2 works.
  return std::get<0>(dropout_forward(input, o.p, o.training, true, o.inplace, o.generator));
}

namespace {
// dropout1d / dropout3d: a batched rank, or one less for an unbatched input (a batch of one).
Tensor feature_dropout_nd(const Tensor& input, const DropoutFuncOptions& o, int64_t rank,
                          const char* op) {
  EMBER_CHECK(input.dim() == rank || input.dim() == rank - 1, op, "Expected ", rank - 1, "D or ",
              rank, "D input, but received a ", input.dim(), "D input");
  EMBER_CHECK(o.p >= 0 && o.p <= 1, op,
              "dropout probability has to be between 0 and 1, but got ", o.p);
  const bool batched = input.dim() == rank;
  const Tensor x = batched ? input : input.unsqueeze(0);
  Tensor y = std::get<0>(dropout_forward(x, o.p, o.training, true, o.inplace, o.generator));
  if (batched) return y;
  return o.inplace ? input : y.squeeze(0);
}
}  // namespace

Tensor dropout1d(const Tensor& input, DropoutFuncOptions o) {
  return feature_dropout_nd(input, o, 3, "dropout1d");
}
Tensor dropout3d(const Tensor& input, DropoutFuncOptions o) {
  return feature_dropout_nd(input, o, 5, "dropout3d");
}

// ── linear ───────────────────────────────────────────────────────────────
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  return ember::linear(input, weight, bias);
}

// ── embedding ────────────────────────────────────────────────────────────
// The kernels are the backend's embedding family (backend/embedding_kernels.h).
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
    embedding_kernel_of(op, weight, &EmbeddingKernels::embedding_renorm)(
        op, weight, idx, *o.max_norm, o.norm_type);
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
  const int64_t pad = padding_idx ? (*padding_idx < 0 ? *padding_idx + num_weights : *padding_idx)
                                  : -1;
  const Dtype cd = opmath_dtype(grad_out.dtype());
  const Tensor g = grad_out.to(cd).contiguous().view({n, D});
  Tensor gw = zeros({num_weights, D}, {.dtype = cd, .device = grad_out.device()});
  kernel(op, gw, g, idx, pad, scale_grad_by_freq);
  return gw.to(grad_out.dtype());
}

// ── scaled_dot_product_attention ─────────────────────────────────────────
std::tuple<Tensor, Tensor> scaled_dot_product_attention_forward(
    const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& attn_mask,
    double dropout_p, bool is_causal, std::optional<double> scale, Generator* gen) {
  const char* op = "scaled_dot_product_attention";
  EMBER_CHECK(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2, op,
              "Expected query, key and value to have at least 2 dimensions, got query ",
              query.sizes(), ", key ", key.sizes(), ", value ", value.sizes());
  EMBER_CHECK(query.size(-1) == key.size(-1), op, "Expected query and key to have the same ",
              "embedding size, got query ", query.sizes(), " and key ", key.sizes());
  EMBER_CHECK(key.size(-2) == value.size(-2), op, "Expected key and value to have the same ",
              "sequence length, got key ", key.sizes(), " and value ", value.sizes());
  EMBER_CHECK(query.is_floating_point(), op, "Expected a floating point query, got ",
              query.dtype());
  EMBER_CHECK(!(is_causal && attn_mask.defined()), op,
              "Explicit attn_mask should not be set when is_causal=True");
  const int64_t L = query.size(-2), S = key.size(-2), E = query.size(-1);
  const double sc = scale.value_or(1.0 / std::sqrt(double(E)));
  // (..., L, E) @ (..., E, S) -> (..., L, S); scaling q costs L*E multiplies, not L*S.
  Tensor attn = matmul(query * sc, key.transpose(-2, -1)).contiguous();
  const double ninf = -std::numeric_limits<double>::infinity();
  if (is_causal) {
    // Row i attends to columns j <= i (the upper-left aligned lower triangle, as PyTorch).
    Tensor keep = ones({L, S}, {.dtype = kBool}).tril();
    attn.masked_fill_(keep.logical_not(), ninf);
  }
  if (attn_mask.defined()) {
    if (attn_mask.dtype() == kBool) {
      const Tensor drop = attn_mask.logical_not();
      if (IntArrayRef(broadcast_shapes(drop.sizes(), attn.sizes())) == attn.sizes())
        attn.masked_fill_(drop, ninf);
      else
        attn = attn.masked_fill(drop, ninf);
    } else {
      attn = attn + attn_mask;  // additive; may broadcast attn up to the mask's batch dims
    }
  }
  attn = softmax(attn, -1);
  if (dropout_p > 0)
    attn = std::get<0>(dropout_forward(attn, dropout_p, true, false, true, gen));
  return {matmul(attn, value), attn};
}

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    ScaledDotProductAttentionOptions o) {
  return std::get<0>(scaled_dot_product_attention_forward(
      query, key, value, o.attn_mask, o.dropout_p, o.is_causal, o.scale, o.generator));
}

// ── distances ────────────────────────────────────────────────────────────
Tensor cosine_similarity(const Tensor& x1_in, const Tensor& x2_in,
                         CosineSimilarityFuncOptions o) {
  const char* op = "cosine_similarity";
  const Dtype common = result_type(x1_in, x2_in);
  EMBER_CHECK(is_floating_point(common), op,
              "expected common dtype to be floating point, yet common dtype is ", common);
  // Integer inputs are promoted first; norms need a floating type.
  const Tensor a = is_floating_point(x1_in.dtype()) ? x1_in : x1_in.to(common);
  const Tensor b = is_floating_point(x2_in.dtype()) ? x2_in : x2_in.to(common);
  const std::vector<Tensor> xs = broadcast_tensors({a, b});
  const int64_t dim = wrap_dim(o.dim, std::max<int64_t>(xs[0].dim(), 1), op);
  // PyTorch 1.13: each input is divided by its own norm (clamped at eps) before the dot product,
  // which keeps the result in [-1, 1].
  const Tensor n1 = linalg_vector_norm(xs[0], 2, {dim}, true).clamp_min(o.eps);
  const Tensor n2 = linalg_vector_norm(xs[1], 2, {dim}, true).clamp_min(o.eps);
  return ((xs[0] / n1) * (xs[1] / n2)).sum(dim);
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, PairwiseDistanceFuncOptions o) {
  const int64_t out_dim = std::max(x1.dim(), x2.dim());
  const int64_t inner = out_dim - 1;
  const Tensor d = x1 - x2 + o.eps;
  if (d.dim() == 0) return d.abs();  // norm over a 0-d tensor: the absolute value
  return linalg_vector_norm(d, o.p, {inner}, o.keepdim);
}

}  // namespace ember::nn::functional
