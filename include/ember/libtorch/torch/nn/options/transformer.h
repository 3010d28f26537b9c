// LibTorch's options for the whole Transformer: sizes, the layers' feed-forward width, dropout
// and activation, and optionally an encoder and a decoder of the program's own (AnyModules):
//   torch::nn::TransformerOptions(/*d_model=*/16, /*nhead=*/4, /*encoder=*/2, /*decoder=*/2)
//       .dim_feedforward(32).dropout(0.0)
#pragma once

#include <cstdint>

#include "torch/arg.h"
#include "torch/nn/modules/container/any.h"
#include "torch/nn/options/transformerlayer.h"

namespace torch::nn {

struct TransformerOptions {
  TransformerOptions() = default;
  TransformerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  TransformerOptions(int64_t d_model, int64_t nhead, int64_t num_encoder_layers,
                     int64_t num_decoder_layers)
      : d_model_(d_model),
        nhead_(nhead),
        num_encoder_layers_(num_encoder_layers),
        num_decoder_layers_(num_decoder_layers) {}
  TORCH_ARG(int64_t, d_model) = 512;
  TORCH_ARG(int64_t, nhead) = 8;
  TORCH_ARG(int64_t, num_encoder_layers) = 6;
  TORCH_ARG(int64_t, num_decoder_layers) = 6;
  TORCH_ARG(int64_t, dim_feedforward) = 2048;
  TORCH_ARG(double, dropout) = 0.1;
  TORCH_ARG(activation_t, activation) = torch::kReLU;
  TORCH_ARG(AnyModule, custom_encoder);
  TORCH_ARG(AnyModule, custom_decoder);
};

}  // namespace torch::nn
