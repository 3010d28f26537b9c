// F::cosine_similarity and F::pairwise_distance with LibTorch's options:
//   F::cosine_similarity(a, b, F::CosineSimilarityFuncOptions().dim(1))
#pragma once

#include "ember/nn/functional/layers.h"
#include "ember/tensor.h"
#include "torch/nn/options/distance.h"

namespace torch::nn::functional {

inline ember::Tensor cosine_similarity(const ember::Tensor& x1, const ember::Tensor& x2,
                                       const CosineSimilarityFuncOptions& options = {}) {
  return ember::nn::functional::cosine_similarity(x1, x2,
                                                  {.dim = options.dim(), .eps = options.eps()});
}
inline ember::Tensor pairwise_distance(const ember::Tensor& x1, const ember::Tensor& x2,
                                       const PairwiseDistanceFuncOptions& options = {}) {
  return ember::nn::functional::pairwise_distance(
      x1, x2, {.p = options.p(), .eps = options.eps(), .keepdim = options.keepdim()});
}

}  // namespace torch::nn::functional
