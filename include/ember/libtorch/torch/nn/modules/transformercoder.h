// torch::nn::TransformerEncoder over ember's: num_layers copies of a layer (same starting
// weights), then an optional norm:
//   torch::nn::TransformerEncoder encoder(torch::nn::TransformerEncoderOptions(layer, 2));
//   torch::nn::TransformerEncoder encoder(layer, /*num_layers=*/2);  encoder(src);
#pragma once

#include <cstdint>

#include "ember/nn/layers/transformer.h"
#include "torch/nn/modules/attention.h"
#include "torch/nn/modules/common.h"
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

}  // namespace torch::nn
