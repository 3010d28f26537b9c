// F::embedding with LibTorch's options, and F::one_hot:
//   F::embedding(indices, weight, F::EmbeddingFuncOptions().padding_idx(0))
#pragma once

#include <cstdint>

#include "ember/index_ops.h"
#include "ember/nn/functional/layers.h"
#include "ember/tensor.h"
#include "torch/nn/options/embedding.h"

namespace torch::nn::functional {

inline ember::Tensor one_hot(const ember::Tensor& tensor, int64_t num_classes = -1) {
  return ember::one_hot(tensor, num_classes);
}
inline ember::Tensor embedding(const ember::Tensor& input, const ember::Tensor& weight,
                               const EmbeddingFuncOptions& options = {}) {
  return ember::nn::functional::embedding(input, weight,
                                          {.padding_idx = options.padding_idx(),
                                           .max_norm = options.max_norm(),
                                           .norm_type = options.norm_type(),
                                           .scale_grad_by_freq = options.scale_grad_by_freq(),
                                           .sparse = options.sparse()});
}

}  // namespace torch::nn::functional
