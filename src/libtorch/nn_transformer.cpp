// torch::nn's attention and transformer layers over ember's: LibTorch's options checked
// against what ember's layers support, and TransformerEncoder's layer and norm handed over as
// ember's handles.
#include <memory>
#include <variant>

#include "ember/error.h"
#include "torch/nn/modules/attention.h"
#include "torch/nn/modules/transformercoder.h"
#include "torch/nn/modules/transformerlayer.h"

namespace torch::nn {

namespace {

ember::nn::MultiheadAttentionOptions attention_options(const MultiheadAttentionOptions& o) {
  EMBER_CHECK(o.kdim() == o.embed_dim() && o.vdim() == o.embed_dim(), "MultiheadAttention",
              "kdim and vdim other than embed_dim are not supported (embed_dim ", o.embed_dim(),
              ", kdim ", o.kdim(), ", vdim ", o.vdim(), ")");
  EMBER_CHECK(!o.add_bias_kv(), "MultiheadAttention", "add_bias_kv(true) is not supported");
  EMBER_CHECK(!o.add_zero_attn(), "MultiheadAttention", "add_zero_attn(true) is not supported");
  return {.dropout = o.dropout(), .bias = o.bias()};
}

ember::nn::TransformerEncoderLayer ember_layer(const TransformerEncoderLayer& layer) {
  EMBER_CHECK(!layer.is_empty(), "TransformerEncoder", "encoder_layer is empty");
  return ember::nn::TransformerEncoderLayer(
      std::shared_ptr<ember::nn::TransformerEncoderLayerImpl>(layer.ptr()));
}

ember::nn::LayerNorm ember_norm(const AnyModule& norm) {
  if (norm.is_empty()) return nullptr;
  auto layer_norm = std::dynamic_pointer_cast<ember::nn::LayerNormImpl>(norm.ptr());
  EMBER_CHECK(layer_norm != nullptr, "TransformerEncoder",
              "the norm must be a LayerNorm (the only norm ember's encoder takes), got ",
              norm.ptr()->name());
  return ember::nn::LayerNorm(layer_norm);
}

/// The random numbers LibTorch draws on top of ember's for one copy of an encoder layer.
/// LibTorch copies the layer with Cloneable::clone, which re-initialises the copy (as ember's
/// copy does) and then clones each child of the original the same way, re-initialising it
/// once more (the values are then overwritten with the layer's). Building the same children
/// again, and dropping them, advances the generator as far: self_attn (its out_proj, then the
/// in_proj draw), out_proj's own clone, linear1, linear2.
void draw_as_libtorch_clone(const ember::nn::TransformerEncoderLayerImpl& layer) {
  const int64_t d_model = layer.d_model, feedforward = layer.options.dim_feedforward;
  ember::nn::MultiheadAttention(
      d_model, layer.nhead,
      {.dropout = layer.options.dropout, .bias = layer.self_attn->options.bias});
  ember::nn::Linear(d_model, d_model, {.bias = layer.self_attn->options.bias});
  ember::nn::Linear(d_model, feedforward);
  ember::nn::Linear(feedforward, d_model);
}

}  // namespace

MultiheadAttentionImpl::MultiheadAttentionImpl(const MultiheadAttentionOptions& options_)
    : ember::nn::MultiheadAttentionImpl(options_.embed_dim(), options_.num_heads(),
                                        attention_options(options_)),
      options(options_) {}

namespace detail {

ember::nn::TransformerLayerOptions transformer_layer_options(const char* op,
                                                             int64_t dim_feedforward,
                                                             double dropout,
                                                             const activation_t& activation) {
  EMBER_CHECK(
      !std::holds_alternative<std::function<ember::Tensor(const ember::Tensor&)>>(activation), op,
      "a function as activation is not supported: ember's transformer layers take "
      "torch::kReLU or torch::kGELU");
  return {.dim_feedforward = dim_feedforward,
          .dropout = dropout,
          .activation = std::holds_alternative<enumtype::kGELU>(activation) ? "gelu" : "relu"};
}

}  // namespace detail

TransformerEncoderImpl::TransformerEncoderImpl(TransformerEncoderOptions options_)
    : ember::nn::TransformerEncoderImpl(ember_layer(options_.encoder_layer()),
                                        options_.num_layers(), ember_norm(options_.norm())),
      options(std::move(options_)) {
  for (int64_t i = 0; i < options.num_layers(); ++i)
    draw_as_libtorch_clone(*options.encoder_layer());
}

}  // namespace torch::nn
