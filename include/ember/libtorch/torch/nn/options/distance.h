// LibTorch's options for cosine similarity and the pairwise distance:
//   F::cosine_similarity(a, b, F::CosineSimilarityFuncOptions().dim(1))
#pragma once

#include <cstdint>

#include "torch/arg.h"

namespace torch::nn {

struct CosineSimilarityOptions {
  TORCH_ARG(int64_t, dim) = 1;
  TORCH_ARG(double, eps) = 1e-8;
};

struct PairwiseDistanceOptions {
  TORCH_ARG(double, p) = 2.0;
  TORCH_ARG(double, eps) = 1e-6;
  TORCH_ARG(bool, keepdim) = false;
};

namespace functional {
using CosineSimilarityFuncOptions = CosineSimilarityOptions;
using PairwiseDistanceFuncOptions = PairwiseDistanceOptions;
}  // namespace functional

}  // namespace torch::nn
