// torch::nn::MultiheadAttention over ember's, with LibTorch's options and forward (the masks
// and flags positional, after query, key and value; inputs (L, N, E); attn_mask added to the
// scores, as LibTorch 1.13's C++ attention does, even when it is bool):
//   torch::nn::MultiheadAttention mha(16, 4);
//   auto [out, weights] = mha(q, k, v);  mha->forward(q, k, v, key_padding_mask, false);
#pragma once

#include <cstdint>
#include <string>
#include <tuple>

#include "ember/nn/layers/attention.h"
#include "torch/nn/modules/common.h"
#include "torch/nn/modules/utils.h"
#include "torch/nn/options/activation.h"

namespace torch::nn {

namespace detail {
/// The attention mask as LibTorch 1.13's C++ attention applies it: it adds the mask to the
/// scores, so a bool mask adds 1 where true (it does not block, unlike PyTorch's Python
/// attention and ember's); a float mask is added as it is.
inline ember::Tensor libtorch_attn_mask(const ember::Tensor& mask, const ember::Tensor& query) {
  if (!mask.defined() || mask.dtype() != ember::kBool) return mask;
  return mask.to(query.dtype());
}
}  // namespace detail

class MultiheadAttentionImpl : public ember::nn::MultiheadAttentionImpl {
 public:
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttentionImpl(MultiheadAttentionOptions(embed_dim, num_heads)) {}
  /// Throws for what ember's attention lacks: kdim or vdim other than embed_dim, add_bias_kv,
  /// add_zero_attn.
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options_);
  std::tuple<ember::Tensor, ember::Tensor> forward(
      const ember::Tensor& query, const ember::Tensor& key, const ember::Tensor& value,
      const ember::Tensor& key_padding_mask = {}, bool need_weights = true,
      const ember::Tensor& attn_mask = {}, bool average_attn_weights = true) {
    return ember::nn::MultiheadAttentionImpl::forward(
        query, key, value,
        {.key_padding_mask = key_padding_mask,
         .need_weights = need_weights,
         .attn_mask = detail::libtorch_attn_mask(attn_mask, query),
         .average_attn_weights = average_attn_weights});
  }
  EMBER_TORCH_LAYER_NAME(MultiheadAttention)
  std::string extra_repr() const override { return {}; }
  MultiheadAttentionOptions options;

 protected:
  FORWARD_HAS_DEFAULT_ARGS({3, AnyValue(ember::Tensor())}, {4, AnyValue(true)},
                           {5, AnyValue(ember::Tensor())}, {6, AnyValue(true)})
};
TORCH_MODULE(MultiheadAttention);

}  // namespace torch::nn
