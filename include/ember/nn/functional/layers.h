// torch.nn.functional's layers: linear, normalisation (batch, layer, group, RMS, instance), prelu,
// dropout, embedding, scaled dot-product attention and the distances. Options follow PyTorch's
// keyword order, so designated initialisers read like Python calls:
//   F::batch_norm(x, running_mean, running_var, {.weight = g, .bias = b, .training = true});
#pragma once

#include <cstdint>
#include <optional>

#include "ember/generator.h"
#include "ember/tensor.h"

namespace ember::nn::functional {

// ── linear ───────────────────────────────────────────────────────────────
/// x @ weight^T + bias: x (*, in), weight (out, in), bias (out) or undefined -> (*, out).
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});

// ── normalisation ────────────────────────────────────────────────────────
struct BatchNormFuncOptions {
  Tensor weight = {};  // (C) or undefined
  Tensor bias = {};    // (C) or undefined
  bool training = false;
  // The running-stat factor: running = (1 - momentum) * running + momentum * batch_stat.
  // nn::BatchNorm with momentum=None passes 1 / num_batches_tracked here (a cumulative moving
  // average); std::nullopt is only accepted when nothing is updated (eval, or no running stats).
  std::optional<double> momentum = 0.1;
  double eps = 1e-5;
};
/// input (N, C, *): normalises each channel by the batch statistics (training; the running
/// stats, when defined, are updated in place with the unbiased batch variance) or by the running
/// statistics (eval).
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  BatchNormFuncOptions options = {});

struct LayerNormFuncOptions {
  Tensor weight = {};  // normalized_shape or undefined
  Tensor bias = {};
  double eps = 1e-5;
};
/// Normalises over the trailing dims given by normalized_shape.
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                  LayerNormFuncOptions options = {});

struct GroupNormFuncOptions {
  Tensor weight = {};  // (C) or undefined
  Tensor bias = {};
  double eps = 1e-5;
};
/// input (N, C, *): normalises each of num_groups groups of C / num_groups channels.
Tensor group_norm(const Tensor& input, int64_t num_groups, GroupNormFuncOptions options = {});

struct RMSNormFuncOptions {
  Tensor weight = {};  // normalized_shape or undefined
  // Default: the machine epsilon of the compute type (float for float16/bfloat16/float32,
  // double for float64), as torch.nn.functional.rms_norm.
  std::optional<double> eps = {};
};
/// x / sqrt(mean(x^2 over normalized_shape) + eps) * weight.
Tensor rms_norm(const Tensor& input, IntArrayRef normalized_shape,
                RMSNormFuncOptions options = {});

struct InstanceNormFuncOptions {
  Tensor running_mean = {};  // (C) or undefined; with use_input_stats, updated in place
  Tensor running_var = {};   // (C) or undefined; the unbiased per-instance variances' mean
  Tensor weight = {};        // (C) or undefined
  Tensor bias = {};
  bool use_input_stats = true;  // false: normalise by the running statistics (they must exist)
  double momentum = 0.1;
  double eps = 1e-5;
};
/// input (N, C, *): normalises each (sample, channel) plane over its own elements.
Tensor instance_norm(const Tensor& input, InstanceNormFuncOptions options = {});

// ── parametric activation ────────────────────────────────────────────────
/// x where x > 0, else weight * x; weight holds 1 slope or one per channel (dim 1 of input).
Tensor prelu(const Tensor& input, const Tensor& weight);

// ── dropout ──────────────────────────────────────────────────────────────
struct DropoutFuncOptions {
  double p = 0.5;
  bool training = true;
  bool inplace = false;
  Generator* generator = nullptr;  // null: the default generator
};
/// Zeroes each element with probability p and scales the rest by 1 / (1 - p) (training only).
Tensor dropout(const Tensor& input, DropoutFuncOptions options = {});
/// Zeroes whole channels: input (N, C, *), one draw per (n, c). Also dropout1d / dropout3d.
Tensor dropout2d(const Tensor& input, DropoutFuncOptions options = {});
Tensor dropout1d(const Tensor& input, DropoutFuncOptions options = {});
Tensor dropout3d(const Tensor& input, DropoutFuncOptions options = {});

// ── embedding ────────────────────────────────────────────────────────────
struct EmbeddingFuncOptions {
  std::optional<int64_t> padding_idx = {};  // only affects the gradient; negative wraps
  std::optional<double> max_norm = {};      // rows looked up are renormalised IN PLACE
  double norm_type = 2.0;
  bool scale_grad_by_freq = false;
  bool sparse = false;
};
/// weight (num_embeddings, D) looked up at indices (*) of int64/int32 -> (*, D).
Tensor embedding(const Tensor& input, const Tensor& weight, EmbeddingFuncOptions options = {});

// ── attention ────────────────────────────────────────────────────────────
struct ScaledDotProductAttentionOptions {
  Tensor attn_mask = {};  // bool (true = attend) or additive float, broadcast to (..., L, S)
  double dropout_p = 0.0;
  bool is_causal = false;
  std::optional<double> scale = {};  // default 1 / sqrt(E)
  Generator* generator = nullptr;    // for dropout_p
};
/// softmax(q kᵀ * scale + mask) v: q (..., L, E), k (..., S, E), v (..., S, Ev) -> (..., L, Ev).
/// The math path: a fully masked row gives NaN, as PyTorch's math kernel.
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    ScaledDotProductAttentionOptions options = {});

// ── distances ────────────────────────────────────────────────────────────
struct CosineSimilarityFuncOptions {
  int64_t dim = 1;
  double eps = 1e-8;
};
/// sum(x1 / max(|x1|, eps) * x2 / max(|x2|, eps)) along dim (x1 and x2 broadcast).
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2,
                         CosineSimilarityFuncOptions options = {});

struct PairwiseDistanceFuncOptions {
  double p = 2.0;
  double eps = 1e-6;
  bool keepdim = false;
};
/// ||x1 - x2 + eps||_p over the last dim.
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2,
                         PairwiseDistanceFuncOptions options = {});

}  // namespace ember::nn::functional
