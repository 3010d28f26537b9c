// Embedding's dense weight gradient (src/ops/embedding.cpp).
#pragma once

#include <cstdint>
#include <optional>

#include "ember/tensor.h"

namespace ember::nn::functional {

/// Dense gradient of embedding's weight (num_weights, D) from grad_out (*, D): rows summed per
/// index; the padding_idx row stays zero; scale_grad_by_freq divides by each index's count.
Tensor embedding_backward(const Tensor& grad_out, const Tensor& indices, int64_t num_weights,
                          std::optional<int64_t> padding_idx, bool scale_grad_by_freq);

}  // namespace ember::nn::functional
