// torch::nn::TransformerEncoderLayer and TransformerDecoderLayer over ember's, from LibTorch's
// options (LibTorch 1.13's layers: post-norm, inputs (S, N, E)):
//   torch::nn::TransformerEncoderLayer(torch::nn::TransformerEncoderLayerOptions(16, 4)
//                                          .dim_feedforward(32).dropout(0.0))
//   layer(src);  layer(src, src_mask, src_key_padding_mask);
#pragma once

#include <cstdint>

#include "ember/nn/layers/transformer.h"
#include "torch/nn/modules/attention.h"
#include "torch/nn/modules/common.h"
#include "torch/nn/modules/utils.h"
#include "torch/nn/options/transformerlayer.h"

namespace torch::nn {

namespace detail {
/// ember's options for a transformer layer (a function as activation is refused: ember's
/// layers take relu or gelu).
ember::nn::TransformerLayerOptions transformer_layer_options(const char* op,
                                                             int64_t dim_feedforward,
                                                             double dropout,
                                                             const activation_t& activation);
}  // namespace detail

class TransformerEncoderLayerImpl : public ember::nn::TransformerEncoderLayerImpl {
 public:
  TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayerImpl(TransformerEncoderLayerOptions(d_model, nhead)) {}
  explicit TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& options_)
      : ember::nn::TransformerEncoderLayerImpl(
            options_.d_model(), options_.nhead(),
            detail::transformer_layer_options("TransformerEncoderLayer", options_.dim_feedforward(),
                                              options_.dropout(), options_.activation())),
        options(options_) {}
  /// src (S, N, E); src_mask is added to the attention scores (LibTorch's, see attention.h).
  ember::Tensor forward(const ember::Tensor& src, const ember::Tensor& src_mask = {},
                        const ember::Tensor& src_key_padding_mask = {}) {
    return ember::nn::TransformerEncoderLayerImpl::forward(
        src, detail::libtorch_attn_mask(src_mask, src), src_key_padding_mask);
  }
  // LibTorch prints this layer under its class name.
  EMBER_TORCH_LAYER_NAME(TransformerEncoderLayerImpl)
  TransformerEncoderLayerOptions options;

 protected:
  FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(ember::Tensor())}, {2, AnyValue(ember::Tensor())})
};
TORCH_MODULE(TransformerEncoderLayer);

class TransformerDecoderLayerImpl : public ember::nn::TransformerDecoderLayerImpl {
 public:
  TransformerDecoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerDecoderLayerImpl(TransformerDecoderLayerOptions(d_model, nhead)) {}
  explicit TransformerDecoderLayerImpl(const TransformerDecoderLayerOptions& options_)
      : ember::nn::TransformerDecoderLayerImpl(
            options_.d_model(), options_.nhead(),
            detail::transformer_layer_options("TransformerDecoderLayer", options_.dim_feedforward(),
                                              options_.dropout(), options_.activation())),
        options(options_) {}
  /// tgt (T, N, E), memory (S, N, E); the masks as the encoder layer's.
  ember::Tensor forward(const ember::Tensor& tgt, const ember::Tensor& memory,
                        const ember::Tensor& tgt_mask = {}, const ember::Tensor& memory_mask = {},
                        const ember::Tensor& tgt_key_padding_mask = {},
                        const ember::Tensor& memory_key_padding_mask = {}) {
    return ember::nn::TransformerDecoderLayerImpl::forward(
        tgt, memory, detail::libtorch_attn_mask(tgt_mask, tgt),
        detail::libtorch_attn_mask(memory_mask, tgt), tgt_key_padding_mask,
        memory_key_padding_mask);
  }
  EMBER_TORCH_LAYER_NAME(TransformerDecoderLayerImpl)
  TransformerDecoderLayerOptions options;

 protected:
  FORWARD_HAS_DEFAULT_ARGS({2, AnyValue(ember::Tensor())}, {3, AnyValue(ember::Tensor())},
                           {4, AnyValue(ember::Tensor())}, {5, AnyValue(ember::Tensor())})
};
TORCH_MODULE(TransformerDecoderLayer);

}  // namespace torch::nn
