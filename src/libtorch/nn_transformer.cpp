// torch::nn's attention and transformer layers over ember's: LibTorch's options checked
// against what ember's layers support, TransformerEncoder's layer and norm handed over as
// ember's handles; and LibTorch's TransformerDecoder and Transformer, composed here.
#include <limits>
#include <memory>
#include <variant>

#include "ember/creation.h"
#include "ember/error.h"
#include "ember/index_ops.h"
#include "torch/nn/init.h"
#include "torch/nn/modules/attention.h"
#include "torch/nn/modules/normalization.h"
#include "torch/nn/modules/transformer.h"
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

/// The random numbers LibTorch draws on top of ember's for one copy of a transformer layer.
/// LibTorch copies the layer with Cloneable::clone, which re-initialises the copy (as ember's
/// copy does) and then clones each child of the original the same way, re-initialising it
/// once more (the values are then overwritten with the layer's). Building the same children
/// again, and dropping them, advances the generator as far: each attention (its out_proj, then
/// the in_proj draw) with its out_proj's own clone, then linear1 and linear2. An encoder layer
/// has one attention, a decoder layer two.
void draw_as_libtorch_clone(int64_t d_model, int64_t nhead, int64_t feedforward, double dropout,
                            bool attention_bias, int attentions) {
  for (int i = 0; i < attentions; ++i) {
    ember::nn::MultiheadAttention(d_model, nhead, {.dropout = dropout, .bias = attention_bias});
    ember::nn::Linear(d_model, d_model, {.bias = attention_bias});
  }
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
  const auto& layer = *options.encoder_layer();
  for (int64_t i = 0; i < options.num_layers(); ++i)
    draw_as_libtorch_clone(layer.d_model, layer.nhead, layer.options.dim_feedforward(),
                           layer.options.dropout(), layer.self_attn->options.bias,
                           /*attentions=*/1);
}

TransformerDecoderImpl::TransformerDecoderImpl(TransformerDecoderOptions options_)
    : options(std::move(options_)) {
  EMBER_CHECK(!options.decoder_layer().is_empty(), "TransformerDecoder", "decoder_layer is empty");
  layers = register_module("layers", ModuleList());
  const auto& layer = *options.decoder_layer();
  for (int64_t i = 0; i < options.num_layers(); ++i) {
    layers->push_back(layer.clone());
    draw_as_libtorch_clone(layer.d_model, layer.nhead, layer.options.dim_feedforward(),
                           layer.options.dropout(), /*attention_bias=*/true, /*attentions=*/2);
  }
  if (!options.norm().is_empty()) {
    norm = options.norm().clone();
    register_module("norm", norm.ptr());
  }
}

ember::Tensor TransformerDecoderImpl::forward(const ember::Tensor& tgt, const ember::Tensor& memory,
                                              const ember::Tensor& tgt_mask,
                                              const ember::Tensor& memory_mask,
                                              const ember::Tensor& tgt_key_padding_mask,
                                              const ember::Tensor& memory_key_padding_mask) {
  ember::Tensor output = tgt;
  for (size_t i = 0; i < layers->size(); ++i)
    output = layers->ptr<TransformerDecoderLayerImpl>(i)->forward(
        output, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask);
  return norm.is_empty() ? output : norm.forward(output);
}

namespace {
/// LibTorch's default stack for Transformer: built from layer options (the layer drawn, then its
/// copies), with a final LayerNorm.
template <class Stack, class StackOptions, class LayerOptions>
AnyModule default_stack(const TransformerOptions& o, int64_t num_layers) {
  auto layer = LayerOptions(o.d_model(), o.nhead())
                   .dim_feedforward(o.dim_feedforward())
                   .dropout(o.dropout())
                   .activation(o.activation());
  LayerNorm norm(LayerNormOptions({o.d_model()}));
  return AnyModule(Stack(StackOptions(layer, num_layers).norm(AnyModule(norm))));
}
}  // namespace

TransformerImpl::TransformerImpl(TransformerOptions options_) : options(std::move(options_)) {
  // As LibTorch's reset(): the default stacks unless the program brought its own.
  encoder = options.custom_encoder().is_empty()
                ? default_stack<TransformerEncoder, TransformerEncoderOptions,
                                TransformerEncoderLayerOptions>(options,
                                                                options.num_encoder_layers())
                : options.custom_encoder().clone();
  register_module("encoder", encoder.ptr());
  decoder = options.custom_decoder().is_empty()
                ? default_stack<TransformerDecoder, TransformerDecoderOptions,
                                TransformerDecoderLayerOptions>(options,
                                                                options.num_decoder_layers())
                : options.custom_decoder().clone();
  register_module("decoder", decoder.ptr());
  reset_parameters();
}

void TransformerImpl::reset_parameters() {
  for (auto& parameter : parameters())
    if (parameter.dim() > 1) init::xavier_uniform_(parameter);
}

ember::Tensor TransformerImpl::forward(const ember::Tensor& src, const ember::Tensor& tgt,
                                       const ember::Tensor& src_mask,
                                       const ember::Tensor& tgt_mask,
                                       const ember::Tensor& memory_mask,
                                       const ember::Tensor& src_key_padding_mask,
                                       const ember::Tensor& tgt_key_padding_mask,
                                       const ember::Tensor& memory_key_padding_mask) {
  EMBER_CHECK(src.dim() == 3 && tgt.dim() == 3, "Transformer",
              "src and tgt should have 3 dimensions, but got ", src.dim(), " and ", tgt.dim());
  EMBER_CHECK(src.size(1) == tgt.size(1), "Transformer",
              "src and tgt should have equal batch size (at dim 1), but got ", src.size(1),
              " and ", tgt.size(1));
  EMBER_CHECK(src.size(2) == options.d_model() && tgt.size(2) == options.d_model(), "Transformer",
              "src and tgt should have same feature size as d_model (at dim 2), but got ",
              src.size(2), " and ", tgt.size(2), " while d_model is ", options.d_model());
  ember::Tensor memory = encoder.forward(src, src_mask, src_key_padding_mask);
  return decoder.forward(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                         memory_key_padding_mask);
}

ember::Tensor TransformerImpl::generate_square_subsequent_mask(int64_t sz) {
  EMBER_CHECK(sz >= 0, "Transformer::generate_square_subsequent_mask",
              "Input size must be non-negative to generate a valid square subsequent mask, but "
              "got ",
              sz);
  return ember::triu(ember::full({sz, sz}, -std::numeric_limits<float>::infinity()), 1);
}

}  // namespace torch::nn
