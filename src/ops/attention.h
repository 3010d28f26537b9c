// scaled_dot_product_attention (src/ops/attention.cpp) in the form autograd needs: returning its
// probabilities.
#pragma once

#include <optional>
#include <tuple>

#include "ember/generator.h"
#include "ember/tensor.h"

namespace ember::nn::functional {

/// (output, attn): attn (..., L, S) the softmax probabilities after dropout, which the backward
/// of the math path reads.
std::tuple<Tensor, Tensor> scaled_dot_product_attention_forward(
    const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& attn_mask,
    double dropout_p, bool is_causal, std::optional<double> scale, Generator* gen);

}  // namespace ember::nn::functional
