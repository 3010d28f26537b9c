// Transformer blocks (torch.nn.TransformerEncoderLayer, TransformerEncoder,
// TransformerDecoderLayer): PyTorch 1.13's submodule names and order, so state dicts match.
//   nn::TransformerEncoderLayer layer(256, 8, {.dim_feedforward = 1024, .batch_first = true});
//   nn::TransformerEncoder encoder(layer, 6);  Tensor y = encoder(x);
#pragma once

#include <string>

#include "ember/nn/layers/attention.h"
#include "ember/nn/layers/container.h"
#include "ember/nn/layers/dropout_embedding.h"
#include "ember/nn/layers/linear.h"
#include "ember/nn/layers/normalization.h"
#include "ember/nn/module.h"

namespace ember::nn {

/// TransformerEncoderLayer / TransformerDecoderLayer keywords, in PyTorch's order.
struct TransformerLayerOptions {
  int64_t dim_feedforward = 2048;
  double dropout = 0.1;
  std::string activation = "relu";  // or "gelu"
  double layer_norm_eps = 1e-5;
  bool batch_first = false;
  bool norm_first = false;  // pre-norm (x + f(norm(x))) instead of post-norm (norm(x + f(x)))
};
using TransformerEncoderLayerOptions = TransformerLayerOptions;
using TransformerDecoderLayerOptions = TransformerLayerOptions;

/// Self-attention then a feed-forward block, each with a residual connection and LayerNorm.
class TransformerEncoderLayerImpl : public Module {
 public:
  TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead,
                              TransformerEncoderLayerOptions options = {});
  /// src (S, N, E) ((N, S, E) with batch_first, or (S, E)); masks as MultiheadAttention's
  /// attn_mask and key_padding_mask.
  Tensor forward(const Tensor& src, const Tensor& src_mask = {},
                 const Tensor& src_key_padding_mask = {});

  int64_t d_model, nhead;
  TransformerEncoderLayerOptions options;
  MultiheadAttention self_attn{nullptr};
  Linear linear1{nullptr};
  Dropout dropout{nullptr};
  Linear linear2{nullptr};
  LayerNorm norm1{nullptr}, norm2{nullptr};
  Dropout dropout1{nullptr}, dropout2{nullptr};

 private:
  Tensor feed_forward(const Tensor& x);
};
class TransformerEncoderLayer : public ModuleHolder<TransformerEncoderLayerImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  TransformerEncoderLayer(int64_t d_model, int64_t nhead,
                          TransformerEncoderLayerOptions options = {})
      : ModuleHolder(std::make_shared<TransformerEncoderLayerImpl>(d_model, nhead,
                                                                   std::move(options))) {}
};

/// num_layers copies of an encoder layer (as PyTorch's deepcopy: same initial weights and
/// mode, separate tensors) under "layers", then an optional final norm.
class TransformerEncoderImpl : public Module {
 public:
  TransformerEncoderImpl(const TransformerEncoderLayer& encoder_layer, int64_t num_layers,
                         LayerNorm norm = nullptr);
  Tensor forward(const Tensor& src, const Tensor& mask = {},
                 const Tensor& src_key_padding_mask = {});

  int64_t num_layers;
  ModuleList layers{nullptr};
  LayerNorm norm{nullptr};
};
class TransformerEncoder : public ModuleHolder<TransformerEncoderImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  TransformerEncoder(const TransformerEncoderLayer& encoder_layer, int64_t num_layers,
                     LayerNorm norm = nullptr)
      : ModuleHolder(std::make_shared<TransformerEncoderImpl>(encoder_layer, num_layers,
                                                              std::move(norm))) {}
};

/// Self-attention, cross-attention over the encoder's memory, then a feed-forward block.
class TransformerDecoderLayerImpl : public Module {
 public:
  TransformerDecoderLayerImpl(int64_t d_model, int64_t nhead,
                              TransformerDecoderLayerOptions options = {});
  /// tgt (T, N, E) and memory (S, N, E) ((N, ·, E) with batch_first).
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});

  int64_t d_model, nhead;
  TransformerDecoderLayerOptions options;
  MultiheadAttention self_attn{nullptr}, multihead_attn{nullptr};
  Linear linear1{nullptr};
  Dropout dropout{nullptr};
  Linear linear2{nullptr};
  LayerNorm norm1{nullptr}, norm2{nullptr}, norm3{nullptr};
  Dropout dropout1{nullptr}, dropout2{nullptr}, dropout3{nullptr};

 private:
  Tensor feed_forward(const Tensor& x);
};
class TransformerDecoderLayer : public ModuleHolder<TransformerDecoderLayerImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  TransformerDecoderLayer(int64_t d_model, int64_t nhead,
                          TransformerDecoderLayerOptions options = {})
      : ModuleHolder(std::make_shared<TransformerDecoderLayerImpl>(d_model, nhead,
                                                                   std::move(options))) {}
};

}  // namespace ember::nn
