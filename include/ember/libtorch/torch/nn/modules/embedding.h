// torch::nn::Embedding over ember's, from sizes or LibTorch's options, and
// Embedding::from_pretrained:
//   torch::nn::Embedding(10, 3)   torch::nn::Embedding(torch::nn::EmbeddingOptions(10,
//   3).padding_idx(0)) auto emb = torch::nn::Embedding::from_pretrained(weights);  // frozen unless
//   .freeze(false)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ember/nn/layers/dropout_embedding.h"
#include "torch/nn/modules/utils.h"
#include "torch/nn/options/embedding.h"

namespace torch::nn {

class EmbeddingImpl : public ember::nn::EmbeddingImpl {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  /// With options._weight() defined, the weight takes its values and draws no random numbers.
  explicit EmbeddingImpl(const EmbeddingOptions& options_);
  EMBER_TORCH_LAYER_NAME(Embedding)
  std::string extra_repr() const override;
  EmbeddingOptions options;

 private:
  // The default generator's state before ember's constructor drew the weight, to put back when
  // the weight was given instead.
  EmbeddingImpl(const EmbeddingOptions& options_, std::optional<std::vector<uint8_t>> rng_state);
};

class Embedding : public ModuleHolder<EmbeddingImpl> {
 public:
  using ModuleHolder<EmbeddingImpl>::ModuleHolder;
  using Impl [[maybe_unused]] = EmbeddingImpl;
  /// An Embedding whose weight is `embeddings` (2-D), not trained when options.freeze().
  static Embedding from_pretrained(const ember::Tensor& embeddings,
                                   const EmbeddingFromPretrainedOptions& options = {});
};

}  // namespace torch::nn
