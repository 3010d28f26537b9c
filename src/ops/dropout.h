// The layer kernels of src/ops/dropout.cpp in the forms autograd needs: dropout returning its
// scaled mask, attention returning its probabilities, embedding's dense weight gradient.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>

#include "ember/generator.h"
#include "ember/tensor.h"

namespace ember::nn::functional {

/// (output, noise): output = input * noise, where noise holds 0 or 1 / (1 - p), shaped like
/// input, or (N, C, 1, ...) when `feature` (whole channels). noise is undefined when nothing
/// was dropped (eval, p == 0, empty input): the backward is then the identity. On a device with
/// a fused dropout kernel (CUDA), element-wise dropout out of place with 0 < p < 1 is PyTorch's
/// native_dropout instead: noise is then its bool mask, and the node NativeDropoutBackward0.
std::tuple<Tensor, Tensor> dropout_forward(const Tensor& input, double p, bool training,
                                           bool feature, bool inplace, Generator* gen);

/// (output, attn): attn (..., L, S) the softmax probabilities after dropout, which the backward
/// of the math path reads.
std::tuple<Tensor, Tensor> scaled_dot_product_attention_forward(
    const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& attn_mask,
    double dropout_p, bool is_causal, std::optional<double> scale, Generator* gen);

/// Dense gradient of embedding's weight (num_weights, D) from grad_out (*, D): rows summed per
/// index; the padding_idx row stays zero; scale_grad_by_freq divides by each index's count.
Tensor embedding_backward(const Tensor& grad_out, const Tensor& indices, int64_t num_weights,
                          std::optional<int64_t> padding_idx, bool scale_grad_by_freq);

}  // namespace ember::nn::functional
