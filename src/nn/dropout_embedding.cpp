// Dropout/Dropout2d/Embedding modules over nn::functional (torch/nn/modules/{dropout,sparse}.py).
#include "ember/nn/layers/dropout_embedding.h"

#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/nn/layers/activation.h"

namespace ember::nn {

DropoutImpl::DropoutImpl(double p, DropoutOptions options) : p(p), options(options) {
  EMBER_CHECK(p >= 0 && p <= 1, "Dropout",
              "dropout probability has to be between 0 and 1, but got ", p);
}

Tensor DropoutImpl::forward(const Tensor& input) {
  return functional::dropout(input,
                             {.p = p, .training = is_training(), .inplace = options.inplace});
}

std::string DropoutImpl::extra_repr() const {
  return "p=" + detail::python_float(p) + ", inplace=" + (options.inplace ? "True" : "False");
}

Tensor Dropout2dImpl::forward(const Tensor& input) {
  return functional::dropout2d(input,
                               {.p = p, .training = is_training(), .inplace = options.inplace});
}

EmbeddingImpl::EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim,
                             EmbeddingOptions options)
    : num_embeddings(num_embeddings), embedding_dim(embedding_dim), options(options) {
  if (options.padding_idx) {
    int64_t& idx = *this->options.padding_idx;
    EMBER_CHECK(idx < num_embeddings && idx >= -num_embeddings, "Embedding",
                "Padding_idx must be within num_embeddings");
    if (idx < 0) idx += num_embeddings;
  }
  weight = register_parameter("weight", empty({num_embeddings, embedding_dim}));
  init::normal_(weight);
  if (this->options.padding_idx) {
    NoGradGuard g;
    weight.select(0, *this->options.padding_idx).fill_(0);
  }
}

Tensor EmbeddingImpl::forward(const Tensor& input) {
  return functional::embedding(input, weight,
                               {.padding_idx = options.padding_idx,
                                .max_norm = options.max_norm,
                                .norm_type = options.norm_type,
                                .scale_grad_by_freq = options.scale_grad_by_freq,
                                .sparse = options.sparse});
}

std::string EmbeddingImpl::extra_repr() const {
  std::string s = std::to_string(num_embeddings) + ", " + std::to_string(embedding_dim);
  if (options.padding_idx) s += ", padding_idx=" + std::to_string(*options.padding_idx);
  if (options.max_norm) s += ", max_norm=" + detail::python_float(*options.max_norm);
  if (options.norm_type != 2) s += ", norm_type=" + detail::python_float(options.norm_type);
  if (options.scale_grad_by_freq) s += ", scale_grad_by_freq=True";
  if (options.sparse) s += ", sparse=True";
  return s;
}

}  // namespace ember::nn
