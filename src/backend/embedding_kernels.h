// The embedding kernels (src/ops/embedding.cpp: F::embedding and its backward). The front end
// checks the weight and the indices' dtype, makes the indices int64 and contiguous and records
// autograd; a kernel checks each index against [0, num_embeddings) (the front end never reads
// element memory) and raises PyTorch's `[op] index out of range in self`.
#pragma once

#include <cstdint>

#include "ember/tensor.h"

namespace ember::backend {

struct EmbeddingKernels {
  /// out (*, D) = the rows of weight ((num, D), contiguous) at indices ((*), int64 contiguous).
  void (*embedding)(const char* op, const Tensor& out, const Tensor& weight,
                    const Tensor& indices) = nullptr;
  /// torch.embedding_renorm_: each distinct row of weight (num, D) at indices whose norm_type
  /// norm exceeds max_norm is scaled, in place, to max_norm / (norm + 1e-7).
  void (*embedding_renorm)(const char* op, const Tensor& weight, const Tensor& indices,
                           double max_norm, double norm_type) = nullptr;
  /// grad_weight ((num, D), zeros, float32 or float64) += grad's rows ((n, D), contiguous, of
  /// grad_weight's dtype) at indices (n), in index order so that repeated indices sum as
  /// PyTorch's; rows at padding_idx (>= 0; -1 for none) are skipped; scale_grad_by_freq divides
  /// by each index's count.
  void (*embedding_backward)(const char* op, const Tensor& grad_weight, const Tensor& grad,
                             const Tensor& indices, int64_t padding_idx,
                             bool scale_grad_by_freq) = nullptr;
};

}  // namespace ember::backend
