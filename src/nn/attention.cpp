// MultiheadAttention: torch/nn/modules/activation.py and F.multi_head_attention_forward (1.13),
// the general path (no bias_k/bias_v, add_zero_attn, or separate kdim/vdim projections).
#include "ember/nn/layers/attention.h"

#include <cmath>
#include <limits>

#include "ember/creation.h"
#include "ember/math.h"
#include "ember/nn/functional.h"
#include "ember/nn/init.h"

namespace ember::nn {

MultiheadAttentionImpl::MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads,
                                               MultiheadAttentionOptions options)
    : embed_dim(embed_dim), num_heads(num_heads), options(options) {
  EMBER_CHECK(embed_dim > 0 && num_heads > 0, "MultiheadAttention",
              "embed_dim and num_heads must be positive, got ", embed_dim, " and ", num_heads);
  EMBER_CHECK(embed_dim % num_heads == 0, "MultiheadAttention",
              "embed_dim must be divisible by num_heads, got ", embed_dim, " and ", num_heads);
  EMBER_CHECK(options.dropout >= 0 && options.dropout <= 1, "MultiheadAttention",
              "dropout probability has to be between 0 and 1, but got ", options.dropout);
  head_dim = embed_dim / num_heads;
  in_proj_weight = register_parameter("in_proj_weight", empty({3 * embed_dim, embed_dim}));
  in_proj_bias = register_parameter("in_proj_bias",
                                    options.bias ? empty({3 * embed_dim}) : Tensor());
  out_proj = register_module(
      "out_proj", Linear(std::make_shared<NonDynamicallyQuantizableLinearImpl>(
                      embed_dim, embed_dim, LinearOptions{.bias = options.bias})));
  reset_parameters();
}

void MultiheadAttentionImpl::reset_parameters() {
  init::xavier_uniform_(in_proj_weight);
  if (in_proj_bias.defined()) init::zeros_(in_proj_bias);
  if (out_proj->bias.defined()) init::zeros_(out_proj->bias);
}

namespace {
// A bool mask (true = masked) as the additive float mask PyTorch builds from it.
Tensor to_additive(const Tensor& mask, Dtype dtype) {
  if (mask.dtype() != kBool) return mask;
  return zeros_like(mask, {.dtype = dtype})
      .masked_fill(mask, -std::numeric_limits<double>::infinity());
}
}  // namespace

std::tuple<Tensor, Tensor> MultiheadAttentionImpl::forward(
    const Tensor& query, const Tensor& key, const Tensor& value,
    const MultiheadAttentionForwardOptions& o) {
  const char* op = "MultiheadAttention";
  EMBER_CHECK(query.dim() == 3 || query.dim() == 2, op,
              "query should be unbatched 2D or batched 3D tensor but received ", query.dim(),
              "-D query tensor");
  const bool batched = query.dim() == 3;
  EMBER_CHECK(key.dim() == query.dim() && value.dim() == query.dim(), op,
              "key and value must have the same rank as query (", query.dim(), "), got ",
              key.dim(), " and ", value.dim());
  // Work in PyTorch's (L, N, E) layout.
  auto layout = [&](const Tensor& t) {
    if (!batched) return t.unsqueeze(1);
    return options.batch_first ? t.transpose(0, 1) : t;
  };
  const Tensor q_in = layout(query), k_in = layout(key), v_in = layout(value);
  const int64_t L = q_in.size(0), N = q_in.size(1), S = k_in.size(0), H = num_heads;
  EMBER_CHECK(q_in.size(2) == embed_dim, op, "was expecting embedding dimension of ", embed_dim,
              ", but got ", q_in.size(2));
  EMBER_CHECK(k_in.sizes() == v_in.sizes() && k_in.size(1) == N && k_in.size(2) == embed_dim, op,
              "key and value must be (S, N, ", embed_dim, ") matching the query's batch, got ",
              key.sizes(), " and ", value.sizes());

  // In-projection: the three (E, E) blocks of the packed weight.
  const auto w = in_proj_weight.chunk(3);
  std::vector<Tensor> b(3);
  if (in_proj_bias.defined()) b = in_proj_bias.chunk(3);
  // (L, N, E) -> (N * H, L, head_dim): each (batch, head) pair is one attention problem.
  auto heads = [&](const Tensor& x, int64_t len) {
    return x.reshape({len, N * H, head_dim}).transpose(0, 1);
  };
  const Tensor q = heads(functional::linear(q_in, w[0], b[0]), L);
  const Tensor k = heads(functional::linear(k_in, w[1], b[1]), S);
  const Tensor v = heads(functional::linear(v_in, w[2], b[2]), S);

  // The masks, merged into one additive (N * H or 1, L, S) mask as PyTorch does.
  Tensor mask;
  if (o.attn_mask.defined()) {
    mask = o.attn_mask;
    EMBER_CHECK(mask.dtype() == kBool || mask.is_floating_point(), op,
                "only bool and floating types of attn_mask are supported, got ", mask.dtype());
    if (mask.dim() == 2) {
      EMBER_CHECK(mask.size(0) == L && mask.size(1) == S, op,
                  "The shape of the 2D attn_mask is ", mask.sizes(), ", but should be (", L,
                  ", ", S, ").");
      mask = mask.unsqueeze(0);
    } else {
      EMBER_CHECK(mask.dim() == 3 && mask.size(0) == N * H && mask.size(1) == L &&
                      mask.size(2) == S,
                  op, "The shape of the 3D attn_mask is ", mask.sizes(), ", but should be (",
                  N * H, ", ", L, ", ", S, ").");
    }
  }
  if (o.key_padding_mask.defined()) {
    const Tensor& kpm = o.key_padding_mask;
    EMBER_CHECK(kpm.dtype() == kBool || kpm.is_floating_point(), op,
                "only bool and floating types of key_padding_mask are supported, got ",
                kpm.dtype());
    EMBER_CHECK(batched ? (kpm.dim() == 2 && kpm.size(0) == N && kpm.size(1) == S)
                        : (kpm.dim() == 1 && kpm.size(0) == S),
                op, "expecting key_padding_mask shape of (", N, ", ", S, "), but got ",
                kpm.sizes());
    const Tensor merged = kpm.reshape({N, 1, 1, S}).expand({N, H, 1, S}).reshape({N * H, 1, S});
    if (!mask.defined())
      mask = merged;
    else if (mask.dtype() == kBool && merged.dtype() == kBool)
      mask = mask.logical_or(merged);
    else
      mask = to_additive(mask, q.dtype()) + to_additive(merged, q.dtype());
  }
  if (mask.defined()) mask = to_additive(mask, q.dtype());

  // softmax(q kᵀ / √d + mask) v per head; weights are kept after dropout (PyTorch returns those).
  Tensor attn = (q / std::sqrt(double(head_dim))).matmul(k.transpose(-2, -1));
  if (mask.defined()) attn = attn + mask;
  attn = attn.softmax(-1);
  if (is_training() && options.dropout > 0)
    attn = functional::dropout(attn, {.p = options.dropout, .training = true});
  Tensor out = attn.matmul(v).transpose(0, 1).reshape({L, N, embed_dim});
  out = functional::linear(out, out_proj->weight, out_proj->bias);

  if (!batched)
    out = out.squeeze(1);
  else if (options.batch_first)
    out = out.transpose(0, 1);
  if (!o.need_weights) return {out, Tensor()};
  Tensor weights = attn.view({N, H, L, S});
  if (o.average_attn_weights) weights = weights.sum(1) / double(H);
  if (!batched) weights = weights.squeeze(0);
  return {out, weights};
}

}  // namespace ember::nn
