// Dropout, Dropout2d and Embedding modules (torch.nn.Dropout, Dropout2d, Embedding).
//   nn::Dropout drop(0.1);  nn::Embedding emb(10000, 256, {.padding_idx = 0});
#pragma once

#include <optional>

#include "ember/nn/module.h"

namespace ember::nn {

struct DropoutOptions {
  bool inplace = false;
};

/// Zeroes elements with probability p in training (scaling the rest by 1 / (1 - p)).
class DropoutImpl : public Module {
 public:
  explicit DropoutImpl(double p = 0.5, DropoutOptions options = {});
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  double p;
  DropoutOptions options;
};
class Dropout : public ModuleHolder<DropoutImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  Dropout(double p = 0.5, DropoutOptions options = {})  // NOLINT
      : ModuleHolder(std::make_shared<DropoutImpl>(p, options)) {}
};

/// Zeroes whole channels of (N, C, H, W) in training.
class Dropout2dImpl : public DropoutImpl {
 public:
  using DropoutImpl::DropoutImpl;
  Tensor forward(const Tensor& input);
};
class Dropout2d : public ModuleHolder<Dropout2dImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  Dropout2d(double p = 0.5, DropoutOptions options = {})  // NOLINT
      : ModuleHolder(std::make_shared<Dropout2dImpl>(p, options)) {}
};

struct EmbeddingOptions {
  std::optional<int64_t> padding_idx = {};  // that row starts at zero and gets no gradient
  std::optional<double> max_norm = {};
  double norm_type = 2.0;
  bool scale_grad_by_freq = false;
  bool sparse = false;
};
/// A lookup table: weight (num_embeddings, embedding_dim) ~ N(0, 1).
class EmbeddingImpl : public Module {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim, EmbeddingOptions options = {});
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  int64_t num_embeddings, embedding_dim;
  EmbeddingOptions options;
  Tensor weight;
};
class Embedding : public ModuleHolder<EmbeddingImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  Embedding(int64_t num_embeddings, int64_t embedding_dim, EmbeddingOptions options = {})
      : ModuleHolder(std::make_shared<EmbeddingImpl>(num_embeddings, embedding_dim, options)) {}
};

}  // namespace ember::nn
