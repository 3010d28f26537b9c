// LibTorch's options for TransformerEncoder and TransformerDecoder: the layer to repeat (or its
// options), how many times, and an optional final norm (an AnyModule; the encoder's must hold a
// LayerNorm):
//   torch::nn::TransformerEncoderOptions(layer, 2)
//       .norm(torch::nn::AnyModule(torch::nn::LayerNorm(torch::nn::LayerNormOptions({16}))))
#pragma once

#include <cstdint>

#include "torch/arg.h"
#include "torch/nn/modules/container/any.h"
#include "torch/nn/modules/transformerlayer.h"

namespace torch::nn {

struct TransformerEncoderOptions {
  TransformerEncoderOptions(TransformerEncoderLayer encoder_layer, int64_t num_layers)
      : encoder_layer_(std::move(encoder_layer)), num_layers_(num_layers) {}
  /// Builds the layer (drawing its weights) from its options.
  TransformerEncoderOptions(const TransformerEncoderLayerOptions& encoder_layer_options,
                            int64_t num_layers)
      : encoder_layer_(encoder_layer_options), num_layers_(num_layers) {}
  TORCH_ARG(TransformerEncoderLayer, encoder_layer) = nullptr;
  TORCH_ARG(int64_t, num_layers);
  TORCH_ARG(AnyModule, norm);
};

struct TransformerDecoderOptions {
  TransformerDecoderOptions(TransformerDecoderLayer decoder_layer, int64_t num_layers)
      : decoder_layer_(std::move(decoder_layer)), num_layers_(num_layers) {}
  /// Builds the layer (drawing its weights) from its options.
  TransformerDecoderOptions(const TransformerDecoderLayerOptions& decoder_layer_options,
                            int64_t num_layers)
      : decoder_layer_(decoder_layer_options), num_layers_(num_layers) {}
  TORCH_ARG(TransformerDecoderLayer, decoder_layer) = nullptr;
  TORCH_ARG(int64_t, num_layers);
  TORCH_ARG(AnyModule, norm);
};

}  // namespace torch::nn
