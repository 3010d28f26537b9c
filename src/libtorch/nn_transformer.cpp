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
      options(std::move(options_)) {}

}  // namespace torch::nn
