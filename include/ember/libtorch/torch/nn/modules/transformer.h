// torch::nn::Transformer, LibTorch's: a TransformerEncoder and a TransformerDecoder, each with a
// final LayerNorm (or the program's own as custom_encoder/custom_decoder), every weight matrix
// then re-drawn with xavier_uniform_ as LibTorch's reset_parameters() does:
//   torch::nn::Transformer model(torch::nn::TransformerOptions(16, 4, 2, 2).dropout(0.0));
//   auto mask = torch::nn::TransformerImpl::generate_square_subsequent_mask(tgt.size(0));
//   model(src, tgt, /*src_mask=*/{}, /*tgt_mask=*/mask);
#pragma once

#include <cstdint>

#include "torch/nn/modules/container/any.h"
#include "torch/nn/modules/transformercoder.h"
#include "torch/nn/modules/utils.h"
#include "torch/nn/options/transformer.h"

namespace torch::nn {

class TransformerImpl : public ember::nn::Module {
 public:
  explicit TransformerImpl(TransformerOptions options_);
  /// src (S, N, E) through the encoder, then tgt (T, N, E) and its memory through the decoder.
  ember::Tensor forward(const ember::Tensor& src, const ember::Tensor& tgt,
                        const ember::Tensor& src_mask = {}, const ember::Tensor& tgt_mask = {},
                        const ember::Tensor& memory_mask = {},
                        const ember::Tensor& src_key_padding_mask = {},
                        const ember::Tensor& tgt_key_padding_mask = {},
                        const ember::Tensor& memory_key_padding_mask = {});
  /// xavier_uniform_ on every parameter of two or more dimensions.
  void reset_parameters();
  /// (sz, sz) float32: -inf above the diagonal, 0 on and below it (an additive causal mask).
  static ember::Tensor generate_square_subsequent_mask(int64_t sz);
  EMBER_TORCH_LAYER_NAME(TransformerImpl)
  TransformerOptions options;
  AnyModule encoder;
  AnyModule decoder;

 protected:
  FORWARD_HAS_DEFAULT_ARGS({2, AnyValue(ember::Tensor())}, {3, AnyValue(ember::Tensor())},
                           {4, AnyValue(ember::Tensor())}, {5, AnyValue(ember::Tensor())},
                           {6, AnyValue(ember::Tensor())}, {7, AnyValue(ember::Tensor())})
};
TORCH_MODULE(Transformer);

}  // namespace torch::nn
