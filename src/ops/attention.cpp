// nn.functional's scaled_dot_product_attention: its math path (matmul, mask, softmax, dropout,
// matmul), whose probabilities the backward reads.
#include "ops/attention.h"

#include <cmath>
#include <limits>

#include "ember/creation.h"
#include "ember/linalg.h"
#include "ember/math.h"
#include "ember/nn/functional/layers.h"
#include "ember/reduce.h"
#include "ember/shape.h"
#include "ops/dropout.h"

namespace ember::nn::functional {

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
  if (dropout_p > 0) attn = std::get<0>(dropout_forward(attn, dropout_p, true, false, true, gen));
  return {matmul(attn, value), attn};
}

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    ScaledDotProductAttentionOptions o) {
  return std::get<0>(scaled_dot_product_attention_forward(
      query, key, value, o.attn_mask, o.dropout_p, o.is_causal, o.scale, o.generator));
}

}  // namespace ember::nn::functional
