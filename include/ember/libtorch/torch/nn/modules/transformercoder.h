// torch::nn::TransformerEncoder over ember's, and LibTorch's TransformerDecoder (ember's core
// has no decoder stack; Python composes its own): num_layers copies of a layer (same starting
// weights), then an optional norm:
//   torch::nn::TransformerEncoder encoder(torch::nn::TransformerEncoderOptions(layer, 2));
//   torch::nn::TransformerEncoder encoder(layer, /*num_layers=*/2);  encoder(src);
//   torch::nn::TransformerDecoder decoder(decoder_layer, 2);  decoder(tgt, memory);
#pragma once

#include <cstdint>

#include "ember/nn/layers/transformer.h"
#include "torch/nn/modules/attention.h"
#include "torch/nn/modules/common.h"
#include "torch/nn/modules/container/modulelist.h"
#include "torch/nn/modules/utils.h"
#include "torch/nn/options/transformercoder.h"

namespace torch::nn {

class TransformerEncoderImpl : public ember::nn::TransformerEncoderImpl {
 public:
  TransformerEncoderImpl(TransformerEncoderLayer encoder_layer, int64_t num_layers)
      : TransformerEncoderImpl(TransformerEncoderOptions(std::move(encoder_layer), num_layers)) {}
  /// The norm, when given, must hold a LayerNorm (ember's encoder takes no other). The random
  /// generator advances as with LibTorch's, whose copies of the layer draw more numbers.
  explicit TransformerEncoderImpl(TransformerEncoderOptions options_);
  ember::Tensor forward(const ember::Tensor& src, const ember::Tensor& src_mask = {},
                        const ember::Tensor& src_key_padding_mask = {}) {
    return ember::nn::TransformerEncoderImpl::forward(
        src, detail::libtorch_attn_mask(src_mask, src), src_key_padding_mask);
  }
  EMBER_TORCH_LAYER_NAME(TransformerEncoderImpl)
  TransformerEncoderOptions options;

 protected:
  FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(ember::Tensor())}, {2, AnyValue(ember::Tensor())})
};
TORCH_MODULE(TransformerEncoder);

/// Copies of the decoder layer under "layers" (each drawing, as LibTorch's clones do, the random
/// numbers of a fresh layer and of its children's clones), then a copy of the norm, if given,
/// under "norm".
class TransformerDecoderImpl : public ember::nn::Module {
 public:
  TransformerDecoderImpl(TransformerDecoderLayer decoder_layer, int64_t num_layers)
      : TransformerDecoderImpl(TransformerDecoderOptions(std::move(decoder_layer), num_layers)) {}
  explicit TransformerDecoderImpl(TransformerDecoderOptions options_);
  /// tgt (T, N, E) and memory (S, N, E) through every layer, then the norm.
  ember::Tensor forward(const ember::Tensor& tgt, const ember::Tensor& memory,
                        const ember::Tensor& tgt_mask = {}, const ember::Tensor& memory_mask = {},
                        const ember::Tensor& tgt_key_padding_mask = {},
                        const ember::Tensor& memory_key_padding_mask = {});
  EMBER_TORCH_LAYER_NAME(TransformerDecoderImpl)
  TransformerDecoderOptions options;
  ModuleList layers{nullptr};
  AnyModule norm;

 protected:
  FORWARD_HAS_DEFAULT_ARGS({2, AnyValue(ember::Tensor())}, {3, AnyValue(ember::Tensor())},
                           {4, AnyValue(ember::Tensor())}, {5, AnyValue(ember::Tensor())})
};
TORCH_MODULE(TransformerDecoder);

}  // namespace torch::nn
