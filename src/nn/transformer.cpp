// Transformer layers: torch/nn/modules/transformer.py (1.13), the reference (non-fast-path)
// computation. Submodules are registered in PyTorch's order so state_dict keys and reprs match.
#include "ember/nn/layers/transformer.h"

#include "ember/autograd.h"
#include "ember/math.h"

namespace ember::nn {

namespace {
Tensor activate(const std::string& activation, const Tensor& x) {
  return activation == "relu" ? relu(x) : gelu(x);
}
void check_activation(const char* op, const std::string& activation) {
  EMBER_CHECK(activation == "relu" || activation == "gelu", op,
              "activation should be relu/gelu, not ", activation);
}
}  // namespace

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead,
                                                         TransformerEncoderLayerOptions o)
    : d_model(d_model), nhead(nhead), options(std::move(o)) {
  check_activation("TransformerEncoderLayer", options.activation);
  self_attn = register_module(
      "self_attn", MultiheadAttention(d_model, nhead, {.dropout = options.dropout,
                                                       .batch_first = options.batch_first}));
  linear1 = register_module("linear1", Linear(d_model, options.dim_feedforward));
  dropout = register_module("dropout", Dropout(options.dropout));
  linear2 = register_module("linear2", Linear(options.dim_feedforward, d_model));
  norm1 = register_module("norm1", LayerNorm({d_model}, {.eps = options.layer_norm_eps}));
  norm2 = register_module("norm2", LayerNorm({d_model}, {.eps = options.layer_norm_eps}));
  dropout1 = register_module("dropout1", Dropout(options.dropout));
  dropout2 = register_module("dropout2", Dropout(options.dropout));
}

Tensor TransformerEncoderLayerImpl::feed_forward(const Tensor& x) {
  return dropout2(linear2(dropout(activate(options.activation, linear1(x)))));
}

Tensor TransformerEncoderLayerImpl::forward(const Tensor& src, const Tensor& src_mask,
                                            const Tensor& src_key_padding_mask) {
  auto self_attention = [&](const Tensor& x) {
    auto [out, weights] = self_attn->forward(
        x, x, x, {.key_padding_mask = src_key_padding_mask, .need_weights = false,
                  .attn_mask = src_mask});
    return dropout1(out);
  };
  Tensor x = src;
  if (options.norm_first) {
    x = x + self_attention(norm1(x));
    return x + feed_forward(norm2(x));
  }
  x = norm1(x + self_attention(x));
  return norm2(x + feed_forward(x));
}

TransformerEncoderImpl::TransformerEncoderImpl(const TransformerEncoderLayer& encoder_layer,
                                               int64_t num_layers, LayerNorm norm)
    : num_layers(num_layers) {
  EMBER_CHECK(num_layers >= 0, "TransformerEncoder", "num_layers must be non-negative, got ",
              num_layers);
  EMBER_CHECK(!encoder_layer.is_empty(), "TransformerEncoder", "encoder_layer is empty");
  layers = register_module("layers", ModuleList());
  const auto& proto = *encoder_layer;
  const StateDict state = proto.state_dict();
  for (int64_t i = 0; i < num_layers; ++i) {
    // PyTorch deep-copies the given layer: same options, weights and training mode.
    TransformerEncoderLayer copy(proto.d_model, proto.nhead, proto.options);
    copy->load_state_dict(state);
    copy->train(proto.is_training());
    layers->push_back(copy);
  }
  if (norm) this->norm = register_module("norm", norm);
}

Tensor TransformerEncoderImpl::forward(const Tensor& src, const Tensor& mask,
                                       const Tensor& src_key_padding_mask) {
  Tensor x = src;
  // Through call_forward, as PyTorch's mod(output, ...): a layer's hooks and forward wrapper
  // (activation checkpointing) run.
  for (const auto& layer : *layers)
    x = nn::detail::call_forward(*std::static_pointer_cast<TransformerEncoderLayerImpl>(layer), x,
                                 mask, src_key_padding_mask);
  return norm ? Tensor(norm(x)) : x;
}

TransformerDecoderLayerImpl::TransformerDecoderLayerImpl(int64_t d_model, int64_t nhead,
                                                         TransformerDecoderLayerOptions o)
    : d_model(d_model), nhead(nhead), options(std::move(o)) {
  check_activation("TransformerDecoderLayer", options.activation);
  const MultiheadAttentionOptions mha{.dropout = options.dropout,
                                      .batch_first = options.batch_first};
  self_attn = register_module("self_attn", MultiheadAttention(d_model, nhead, mha));
  multihead_attn = register_module("multihead_attn", MultiheadAttention(d_model, nhead, mha));
  linear1 = register_module("linear1", Linear(d_model, options.dim_feedforward));
  dropout = register_module("dropout", Dropout(options.dropout));
  linear2 = register_module("linear2", Linear(options.dim_feedforward, d_model));
  norm1 = register_module("norm1", LayerNorm({d_model}, {.eps = options.layer_norm_eps}));
  norm2 = register_module("norm2", LayerNorm({d_model}, {.eps = options.layer_norm_eps}));
  norm3 = register_module("norm3", LayerNorm({d_model}, {.eps = options.layer_norm_eps}));
  dropout1 = register_module("dropout1", Dropout(options.dropout));
  dropout2 = register_module("dropout2", Dropout(options.dropout));
  dropout3 = register_module("dropout3", Dropout(options.dropout));
}

Tensor TransformerDecoderLayerImpl::feed_forward(const Tensor& x) {
  return dropout3(linear2(dropout(activate(options.activation, linear1(x)))));
}

Tensor TransformerDecoderLayerImpl::forward(const Tensor& tgt, const Tensor& memory,
                                            const Tensor& tgt_mask, const Tensor& memory_mask,
                                            const Tensor& tgt_key_padding_mask,
                                            const Tensor& memory_key_padding_mask) {
  auto self_attention = [&](const Tensor& x) {
    auto [out, w] = self_attn->forward(x, x, x, {.key_padding_mask = tgt_key_padding_mask,
                                                 .need_weights = false, .attn_mask = tgt_mask});
    return dropout1(out);
  };
  auto cross_attention = [&](const Tensor& x) {
    auto [out, w] = multihead_attn->forward(
        x, memory, memory, {.key_padding_mask = memory_key_padding_mask, .need_weights = false,
                            .attn_mask = memory_mask});
    return dropout2(out);
  };
  Tensor x = tgt;
  if (options.norm_first) {
    x = x + self_attention(norm1(x));
    x = x + cross_attention(norm2(x));
    return x + feed_forward(norm3(x));
  }
  x = norm1(x + self_attention(x));
  x = norm2(x + cross_attention(x));
  return norm3(x + feed_forward(x));
}

}  // namespace ember::nn
