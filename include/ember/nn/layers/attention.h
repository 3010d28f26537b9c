// MultiheadAttention (torch.nn.MultiheadAttention): packed input projection, per-head scaled
// dot-product attention and output projection, with PyTorch's parameter layout (in_proj_weight
// (3E, E), in_proj_bias (3E), out_proj.weight/bias) so state dicts interoperate.
//   nn::MultiheadAttention mha(256, 8, {.batch_first = true});
//   auto [out, weights] = mha->forward(x, x, x, {.key_padding_mask = pad});
#pragma once

#include <tuple>

#include "ember/nn/layers/linear.h"
#include "ember/nn/module.h"

namespace ember::nn {

struct MultiheadAttentionOptions {
  double dropout = 0.0;     // on the attention weights, in training
  bool bias = true;         // in_proj_bias and out_proj.bias
  bool batch_first = false; // inputs (N, L, E) instead of (L, N, E)
};

/// forward's keywords, in PyTorch's order.
struct MultiheadAttentionForwardOptions {
  Tensor key_padding_mask = {};  // (N, S): bool, true = ignore that key; or float, added
  bool need_weights = true;      // also return the attention weights
  Tensor attn_mask = {};  // (L, S) or (N * num_heads, L, S): bool, true = NOT allowed; or float
  bool average_attn_weights = true;  // weights averaged over heads (N, L, S), else (N, H, L, S)
};

/// out_proj's class: a Linear under PyTorch's name, so reprs match.
class NonDynamicallyQuantizableLinearImpl : public LinearImpl {
 public:
  using LinearImpl::LinearImpl;
};

/// Attention over num_heads heads of embed_dim / num_heads each (kdim = vdim = embed_dim).
class MultiheadAttentionImpl : public Module {
 public:
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads,
                         MultiheadAttentionOptions options = {});
  /// PyTorch's _reset_parameters: xavier_uniform on in_proj_weight, zero biases.
  void reset_parameters();
  /// query (L, N, E), key and value (S, N, E) — (N, L, E) with batch_first, or unbatched (L, E)
  /// — -> the attended output shaped like query, and the attention weights (undefined unless
  /// need_weights). A fully masked query row gives NaN, as PyTorch.
  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const MultiheadAttentionForwardOptions& options = {});

  int64_t embed_dim, num_heads, head_dim;
  MultiheadAttentionOptions options;
  Tensor in_proj_weight, in_proj_bias;  // (3E, E), (3E) or undefined
  Linear out_proj{nullptr};
};
class MultiheadAttention : public ModuleHolder<MultiheadAttentionImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  MultiheadAttention(int64_t embed_dim, int64_t num_heads, MultiheadAttentionOptions options = {})
      : ModuleHolder(std::make_shared<MultiheadAttentionImpl>(embed_dim, num_heads, options)) {}
};

}  // namespace ember::nn
