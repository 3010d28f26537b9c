// Gradients of the nn kernels (src/ops/conv.cpp, pool.cpp, resize.cpp, norm.cpp, dropout.cpp,
// embedding.cpp, attention.cpp, distance.cpp, loss.cpp): gradcheck over a table, and the
// gradients compared with PyTorch 1.13's (tests/golden/nn_grad.json, from
// tests/golden/gen_nn_grad.py).
#include "grad_table.h"

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "ember/nn/functional.h"
#include "golden_support.h"

namespace ember::gradtest {
namespace {

namespace F = nn::functional;

const GradCase kCases[] = {
    // ── convolution: ConvolutionBackward0; double backward through the differentiable form
    //    (Note [Convolution double backward]) ──
    {"conv2d", "ConvolutionBackward0", [] { return In{x({2, 3, 5, 5}), x({4, 3, 3, 3}), x({4})}; },
     [](const In& t) { return F::conv2d(t[0], t[1], {.bias = t[2]}); }},
    {"conv2d_stride_pad_dil", "ConvolutionBackward0",
     [] { return In{x({1, 2, 7, 6}), x({2, 2, 3, 2})}; },
     [](const In& t) {
       return F::conv2d(t[0], t[1], {.stride = {2, 1}, .padding = {1, 2}, .dilation = {2, 1}});
     }},
    {"conv2d_stride_leaves_tail", "ConvolutionBackward0",  // the last row and column go unread
     [] { return In{x({1, 2, 8, 8}), x({3, 2, 3, 3})}; },
     [](const In& t) { return F::conv2d(t[0], t[1], {.stride = 3, .padding = 1}); }},
    {"conv2d_groups_same", "ConvolutionBackward0",
     [] { return In{x({2, 4, 5, 4}), x({6, 2, 2, 3}), x({6})}; },
     [](const In& t) {
       return F::conv2d(t[0], t[1], {.bias = t[2], .padding = "same", .groups = 2});
     }},
    {"conv2d_unbatched_const_weight", "ConvolutionBackward0",
     [] { return In{x({2, 4, 4}), c({3, 2, 2, 2})}; },
     [](const In& t) { return F::conv2d(t[0], t[1]); }},
    {"conv1d", "ConvolutionBackward0", [] { return In{x({2, 3, 9}), x({4, 3, 3}), x({4})}; },
     [](const In& t) {
       return F::conv1d(t[0], t[1], {.bias = t[2], .stride = 2, .padding = 1, .dilation = 2});
     }},
    {"conv_transpose2d", "ConvolutionBackward0",
     [] { return In{x({2, 4, 3, 3}), x({4, 3, 3, 2}), x({6})}; },
     [](const In& t) {
       return F::conv_transpose2d(t[0], t[1], {.bias = t[2], .stride = 2, .padding = 1,
                                               .output_padding = 1, .groups = 2});
     }},
    {"conv_transpose1d", "ConvolutionBackward0", [] { return In{x({1, 2, 5}), x({2, 3, 3})}; },
     [](const In& t) { return F::conv_transpose1d(t[0], t[1], {.stride = 2, .dilation = 2}); }},
    // ── pooling: backward kernels recorded with the forward as adjoint (double backward) ──
    {"max_pool2d", "MaxPool2DWithIndicesBackward0", [] { return In{x({2, 3, 6, 5})}; },
     [](const In& t) { return F::max_pool2d(t[0], {3, 2}, {.stride = 2, .padding = 1}); }},
    {"max_pool2d_overlap_dil_ceil", "MaxPool2DWithIndicesBackward0",
     [] { return In{x({1, 2, 7, 7})}; },
     [](const In& t) {
       return F::max_pool2d(t[0], 3, {.stride = 2, .dilation = 2, .ceil_mode = true});
     }},
    {"max_pool2d_with_indices_unbatched", "MaxPool2DWithIndicesBackward0",
     [] { return In{x({2, 4, 4})}; },
     [](const In& t) { return std::get<0>(F::max_pool2d_with_indices(t[0], 2)); }},
    {"max_pool1d", "MaxPool2DWithIndicesBackward0", [] { return In{x({2, 3, 8})}; },
     [](const In& t) { return F::max_pool1d(t[0], 3, {.stride = 2, .padding = 1}); }},
    {"avg_pool2d_count_include_pad", "AvgPool2DBackward0", [] { return In{x({2, 2, 5, 6})}; },
     [](const In& t) { return F::avg_pool2d(t[0], 3, {.stride = 2, .padding = 1}); }},
    {"avg_pool2d_exclude_pad_ceil", "AvgPool2DBackward0", [] { return In{x({1, 2, 5, 5})}; },
     [](const In& t) {
       return F::avg_pool2d(t[0], 2, {.stride = 2, .padding = 1, .ceil_mode = true,
                                      .count_include_pad = false});
     }},
    {"avg_pool2d_divisor", "AvgPool2DBackward0", [] { return In{x({1, 1, 4, 4})}; },
     [](const In& t) { return F::avg_pool2d(t[0], 2, {.stride = 1, .divisor_override = 3}); }},
    {"avg_pool1d", "AvgPool2DBackward0", [] { return In{x({2, 2, 7})}; },
     [](const In& t) { return F::avg_pool1d(t[0], 3, {.stride = 2}); }},
    {"adaptive_avg_pool2d", "AdaptiveAvgPool2DBackward0", [] { return In{x({2, 3, 7, 5})}; },
     [](const In& t) { return F::adaptive_avg_pool2d(t[0], {3, 2}); }},
    {"adaptive_avg_pool1d", "AdaptiveAvgPool2DBackward0", [] { return In{x({2, 7})}; },
     [](const In& t) { return F::adaptive_avg_pool1d(t[0], 3); }},
    {"adaptive_max_pool2d", "AdaptiveMaxPool2DBackward0", [] { return In{x({2, 2, 7, 5})}; },
     [](const In& t) { return F::adaptive_max_pool2d(t[0], {3, 4}); }},
    {"adaptive_max_pool1d", "AdaptiveMaxPool2DBackward0", [] { return In{x({1, 2, 9})}; },
     [](const In& t) { return F::adaptive_max_pool1d(t[0], 4); }},
    // ── interpolate and pad (linear kernels, double backward through the adjoint) ──
    {"interpolate_nearest2d", "UpsampleNearest2DBackward1", [] { return In{x({2, 2, 3, 4})}; },
     [](const In& t) { return F::interpolate(t[0], {.scale_factor = {2.0, 1.5}}); }},
    {"interpolate_nearest_down", "UpsampleNearest2DBackward1", [] { return In{x({1, 2, 7, 5})}; },
     [](const In& t) { return F::interpolate(t[0], {.size = {3, 4}}); }},
    {"interpolate_nearest1d", "UpsampleNearest1DBackward1", [] { return In{x({2, 2, 5})}; },
     [](const In& t) { return F::interpolate(t[0], {.size = 8}); }},
    {"interpolate_bilinear", "UpsampleBilinear2DBackward1", [] { return In{x({1, 2, 3, 4})}; },
     [](const In& t) { return F::interpolate(t[0], {.size = {5, 7}, .mode = "bilinear"}); }},
    {"interpolate_bilinear_align", "UpsampleBilinear2DBackward1",
     [] { return In{x({2, 1, 4, 3})}; },
     [](const In& t) {
       return F::interpolate(t[0], {.scale_factor = 1.7, .mode = "bilinear",
                                    .align_corners = true});
     }},
    {"interpolate_linear", "UpsampleLinear1DBackward1", [] { return In{x({1, 3, 4})}; },
     [](const In& t) { return F::interpolate(t[0], {.size = 9, .mode = "linear"}); }},
    {"pad_constant", "ConstantPadNdBackward0", [] { return In{x({2, 3, 4})}; },
     [](const In& t) { return F::pad(t[0], {1, 2, 0, 1}, {.value = 1.5}); }},
    {"pad_constant_crop", "ConstantPadNdBackward0", [] { return In{xt({4, 5})}; },
     [](const In& t) { return F::pad(t[0], {-1, 2, 1, -2}); }},
    {"pad_reflect", "ReflectionPad2DBackward0", [] { return In{x({1, 2, 4, 5})}; },
     [](const In& t) { return F::pad(t[0], {2, 1, 3, 1}, {.mode = "reflect"}); }},
    {"pad_reflect1d", "ReflectionPad1DBackward0", [] { return In{x({2, 5})}; },
     [](const In& t) { return F::pad(t[0], {3, 2}, {.mode = "reflect"}); }},
    {"pad_replicate", "ReplicationPad2DBackward0", [] { return In{x({1, 2, 3, 3})}; },
     [](const In& t) { return F::pad(t[0], {2, 3, 1, 2}, {.mode = "replicate"}); }},
    {"pad_circular", "", [] { return In{x({1, 2, 3, 4})}; },
     [](const In& t) { return F::pad(t[0], {1, 2, 2, 1}, {.mode = "circular"}); }},
    // ── normalisation: native nodes; double backward recomputes the statistics ──
    {"batch_norm_train", "NativeBatchNormBackward0",
     [] { return In{x({4, 3, 2, 2}), x({3}), x({3})}; },
     [](const In& t) {
       return F::batch_norm(t[0], {}, {}, {.weight = t[1], .bias = t[2], .training = true});
     }},
    {"batch_norm_train_running_2d", "NativeBatchNormBackward0", [] { return In{x({5, 3})}; },
     [](const In& t) {
       Tensor rm = zeros({3}, {.dtype = kFloat64}), rv = ones({3}, {.dtype = kFloat64});
       return F::batch_norm(t[0], rm, rv, {.training = true, .momentum = 0.3});
     }},
    // Planes of >= 32 elements: the fused backward kernel (double backward stays composite).
    {"batch_norm_train_planar", "NativeBatchNormBackward0",
     [] { return In{x({3, 2, 6, 6}), x({2}), x({2})}; },
     [](const In& t) {
       return F::batch_norm(t[0], {}, {}, {.weight = t[1], .bias = t[2], .training = true});
     }},
    {"batch_norm_train_planar_no_affine_transposed", "NativeBatchNormBackward0",
     [] { return In{x({2, 40, 3})}; },
     [](const In& t) { return F::batch_norm(t[0].transpose(1, 2), {}, {}, {.training = true}); }},
    {"batch_norm_eval_planar", "NativeBatchNormBackward0",
     [] { return In{x({2, 3, 40}), x({3}), c({3}), c({3}, 0.5, 2)}; },
     [](const In& t) { return F::batch_norm(t[0], t[2], t[3], {.weight = t[1]}); }},
    {"batch_norm_eval", "NativeBatchNormBackward0",
     [] { return In{x({2, 3, 4}), x({3}), x({3}), c({3}), c({3}, 0.5, 2)}; },
     [](const In& t) {
       return F::batch_norm(t[0], t[3], t[4], {.weight = t[1], .bias = t[2], .eps = 1e-3});
     }},
    {"layer_norm", "NativeLayerNormBackward0", [] { return In{x({3, 2, 4}), x({2, 4}), x({2, 4})}; },
     [](const In& t) { return F::layer_norm(t[0], {2, 4}, {.weight = t[1], .bias = t[2]}); }},
    {"layer_norm_plain_nc", "NativeLayerNormBackward0", [] { return In{xt({4, 5})}; },
     [](const In& t) { return F::layer_norm(t[0], {5}, {.eps = 1e-3}); }},
    {"layer_norm_bias_only", "NativeLayerNormBackward0", [] { return In{x({3, 4}), x({4})}; },
     [](const In& t) { return F::layer_norm(t[0], {4}, {.bias = t[1]}); }},
    {"group_norm", "NativeGroupNormBackward0",
     [] { return In{x({2, 4, 3}), x({4}), x({4})}; },
     [](const In& t) { return F::group_norm(t[0], 2, {.weight = t[1], .bias = t[2]}); }},
    {"group_norm_4d_plain", "NativeGroupNormBackward0", [] { return In{x({2, 6, 2, 2})}; },
     [](const In& t) { return F::group_norm(t[0], 3); }},
    {"rms_norm", "FusedRmsNormBackward0", [] { return In{x({3, 4}), x({4})}; },
     [](const In& t) { return F::rms_norm(t[0], {4}, {.weight = t[1], .eps = 1e-5}); }},
    {"rms_norm_plain", "FusedRmsNormBackward0", [] { return In{x({2, 2, 3})}; },
     [](const In& t) { return F::rms_norm(t[0], {2, 3}); }},
    // ── embedding, dropout ──
    {"embedding", "EmbeddingBackward0", [] { return In{x({5, 3})}; },
     [](const In& t) {
       return F::embedding(tensor({{1, 4, 1}, {0, 1, 3}}, {.dtype = kInt64}), t[0]);
     }},
    // (padding_idx and scale_grad_by_freq change the gradient on purpose: targeted tests.)
    {"embedding_repeated_nc", "EmbeddingBackward0", [] { return In{xt({5, 2})}; },
     [](const In& t) { return F::embedding(tensor({2, 4, 2, 0, 2}, {.dtype = kInt64}), t[0]); }},
    {"dropout", "MulBackward0", [] { return In{x({4, 5})}; },
     [](const In& t) {
       Generator gen(7);
       return F::dropout(t[0], {.p = 0.4, .training = true, .generator = &gen});
     }},
    {"dropout2d", "MulBackward0", [] { return In{x({2, 3, 2, 2})}; },
     [](const In& t) {
       Generator gen(3);
       return F::dropout2d(t[0], {.p = 0.5, .training = true, .generator = &gen});
     }},
    // ── losses ──
    {"nll_loss", "NllLossBackward0", [] { return In{x({4, 3})}; },
     [](const In& t) {
       return F::nll_loss(t[0], tensor({0, 2, 1, 2}, {.dtype = kInt64}),
                          {.weight = tensor({0.5, 2.0, 1.0}, {.dtype = kFloat64})});
     }},
    {"nll_loss_ignore_none_2d", "NllLossBackward0", [] { return In{x({2, 3, 2})}; },
     [](const In& t) {
       return F::nll_loss(t[0], tensor({{0, 1}, {2, 1}}, {.dtype = kInt64}),
                          {.ignore_index = 1, .reduction = "none"});
     }},
    // cross_entropy with class indices: the fused kernel; its differentiable form under
    // create_graph (Note [Cross entropy double backward]).
    {"cross_entropy", "NllLossBackward0", [] { return In{x({4, 5})}; },
     [](const In& t) {
       return F::cross_entropy(t[0], tensor({0, 4, 1, 2}, {.dtype = kInt64}));
     }},
    {"cross_entropy_weight_ignore_smooth", "NllLossBackward0", [] { return In{x({3, 4, 2})}; },
     [](const In& t) {
       return F::cross_entropy(t[0], tensor({{0, 3}, {1, 1}, {3, 2}}, {.dtype = kInt64}),
                               {.weight = tensor({1.0, 0.5, 2.0, 1.5}, {.dtype = kFloat64}),
                                .ignore_index = 3, .label_smoothing = 0.2});
     }},
    {"cross_entropy_sum_unbatched", "NllLossBackward0", [] { return In{x({5})}; },
     [](const In& t) {
       return F::cross_entropy(t[0], tensor(int64_t(2)), {.reduction = "sum"});
     }},
    {"cross_entropy_none", "NllLossBackward0", [] { return In{xt({5, 3})}; },
     [](const In& t) {
       return F::cross_entropy(t[0], tensor({1, 0, 2, 2, 1}, {.dtype = kInt64}),
                               {.reduction = "none", .label_smoothing = 0.1});
     }},
    {"mse_loss", "MseLossBackward0", [] { return In{x({3, 4}), x({3, 4})}; },
     [](const In& t) { return F::mse_loss(t[0], t[1]); }},
    {"mse_loss_none_broadcast", "MseLossBackward0", [] { return In{x({3, 4}), x({4})}; },
     [](const In& t) { return F::mse_loss(t[0], t[1], {.reduction = "none"}); }},
    {"smooth_l1_loss", "SmoothL1LossBackward0", [] { return In{x({3, 4}), x({3, 4})}; },
     [](const In& t) { return F::smooth_l1_loss(t[0], t[1], {.beta = 0.7}); }},
    {"huber_loss", "HuberLossBackward0", [] { return In{x({3, 4}), xt({3, 4})}; },
     [](const In& t) { return F::huber_loss(t[0], t[1], {.reduction = "sum", .delta = 0.8}); }},
    {"bce", "BinaryCrossEntropyBackward0",
     [] { return In{x({3, 4}, 0.1, 0.9), x({3, 4}, 0, 1)}; },
     [](const In& t) { return F::binary_cross_entropy(t[0], t[1]); }},
    {"bce_weight_none", "BinaryCrossEntropyBackward0",
     [] { return In{x({2, 3}, 0.1, 0.9), c({2, 3}, 0, 1), c({3}, 0.5, 2)}; },
     [](const In& t) {
       return F::binary_cross_entropy(t[0], t[1], {.weight = t[2], .reduction = "none"});
     }},
    {"bce_with_logits", "BinaryCrossEntropyWithLogitsBackward0",
     [] { return In{x({3, 4}), x({3, 4}, 0, 1)}; },
     [](const In& t) { return F::binary_cross_entropy_with_logits(t[0], t[1]); }},
    {"bce_with_logits_pos_weight", "BinaryCrossEntropyWithLogitsBackward0",
     [] { return In{x({3, 4}), x({3, 4}, 0, 1), c({4}, 0.5, 2), c({4}, 0.5, 3)}; },
     [](const In& t) {
       return F::binary_cross_entropy_with_logits(
           t[0], t[1], {.weight = t[2], .reduction = "sum", .pos_weight = t[3]});
     }},
    // ── composites: gradients through the other families' backward ──
    {"sdpa_bool_mask", "", [] { return In{x({2, 3, 4}), x({2, 5, 4}), x({2, 5, 2})}; },
     [](const In& t) {
       const Tensor keep = tensor({true, false, true, true, false}).view({1, 5});
       return F::scaled_dot_product_attention(t[0], t[1], t[2], {.attn_mask = keep});
     }},
    {"sdpa_causal_additive", "", [] { return In{x({3, 4}), x({3, 4}), xt({3, 2})}; },
     [](const In& t) { return F::scaled_dot_product_attention(t[0], t[1], t[2], {.is_causal = true}); }},
    {"cross_entropy_probabilities", "", [] { return In{x({3, 4}), x({3, 4}, 0, 1)}; },
     [](const In& t) { return F::cross_entropy(t[0], t[1], {.label_smoothing = 0.1}); }},
    {"l1_loss", "", [] { return In{x({3, 4}), x({4})}; },
     [](const In& t) { return F::l1_loss(t[0], t[1]); }},
    {"kl_div_const_target", "", [] { return In{x({3, 4}), c({3, 4}, 0.1, 1)}; },
     [](const In& t) { return F::kl_div(t[0], t[1], {.reduction = "batchmean"}); }},
    {"kl_div_log_target", "", [] { return In{x({3, 4}), x({3, 4})}; },
     [](const In& t) { return F::kl_div(t[0], t[1], {.reduction = "sum", .log_target = true}); }},
    {"cosine_similarity", "", [] { return In{x({3, 5}), x({5})}; },
     [](const In& t) { return F::cosine_similarity(t[0], t[1], {.dim = -1}); }},
    {"pairwise_distance", "", [] { return In{x({3, 5}), xt({3, 5})}; },
     [](const In& t) { return F::pairwise_distance(t[0], t[1], {.p = 3.0}); }},
};

EMBER_GRAD_TABLE(NN, kCases);

// ── PyTorch 1.13 golden gradients ────────────────────────────────────────
using json = nlohmann::json;
using Named = std::map<std::string, Tensor>;

using GoldenFn = std::function<Tensor(const Named&, const json&)>;

const std::map<std::string, GoldenFn>& golden_rows() {
  static const std::map<std::string, GoldenFn> rows = {
      {"conv2d", [](const Named& t, const json&) {
         return F::conv2d(t.at("x"), t.at("w"), {.bias = t.at("b"), .stride = {2, 1},
                                                 .padding = {1, 2}, .dilation = {1, 2},
                                                 .groups = 2});
       }},
      {"conv2d_same", [](const Named& t, const json&) {
         return F::conv2d(t.at("x"), t.at("w"), {.padding = "same"});
       }},
      {"conv1d", [](const Named& t, const json&) {
         return F::conv1d(t.at("x"), t.at("w"),
                          {.bias = t.at("b"), .stride = 2, .padding = 1, .dilation = 2});
       }},
      {"conv_transpose2d", [](const Named& t, const json&) {
         return F::conv_transpose2d(t.at("x"), t.at("w"),
                                    {.bias = t.at("b"), .stride = 2, .padding = 1,
                                     .output_padding = 1, .groups = 2});
       }},
      {"conv_cross_entropy_gradient_penalty", [](const Named& t, const json&) {
         const Tensor logits =
             F::conv2d(t.at("x"), t.at("w"), {.bias = t.at("b"), .stride = 2, .padding = 1})
                 .flatten(1)
                 .matmul(t.at("v"));
         const Tensor loss = F::cross_entropy(logits, t.at("y"), {.label_smoothing = 0.1});
         const Tensor gx = autograd::grad({loss}, {t.at("x")}, {.create_graph = true})[0];
         return (gx * gx).sum();
       }},
      {"max_pool2d", [](const Named& t, const json&) {
         return F::max_pool2d(t.at("x"), 3, {.stride = 2, .padding = 1});
       }},
      {"avg_pool2d", [](const Named& t, const json&) {
         return F::avg_pool2d(t.at("x"), 3, {.stride = 2, .padding = 1, .ceil_mode = true,
                                             .count_include_pad = false});
       }},
      {"adaptive_avg_pool2d",
       [](const Named& t, const json&) { return F::adaptive_avg_pool2d(t.at("x"), {3, 2}); }},
      {"adaptive_max_pool2d",
       [](const Named& t, const json&) { return F::adaptive_max_pool2d(t.at("x"), {3, 4}); }},
      {"interpolate_bilinear", [](const Named& t, const json&) {
         return F::interpolate(t.at("x"), {.size = {5, 7}, .mode = "bilinear"});
       }},
      {"interpolate_nearest", [](const Named& t, const json&) {
         return F::interpolate(t.at("x"), {.scale_factor = {2.0, 1.5}});
       }},
      {"pad_reflect", [](const Named& t, const json&) {
         return F::pad(t.at("x"), {2, 1, 3, 1}, {.mode = "reflect"});
       }},
      {"pad_replicate", [](const Named& t, const json&) {
         return F::pad(t.at("x"), {2, 3, 1, 2}, {.mode = "replicate"});
       }},
      {"batch_norm_train", [](const Named& t, const json&) {
         return F::batch_norm(t.at("x"), {}, {},
                              {.weight = t.at("w"), .bias = t.at("b"), .training = true});
       }},
      {"batch_norm_eval", [](const Named& t, const json&) {
         return F::batch_norm(t.at("x"), t.at("rm"), t.at("rv"),
                              {.weight = t.at("w"), .bias = t.at("b"), .eps = 1e-3});
       }},
      {"layer_norm", [](const Named& t, const json&) {
         return F::layer_norm(t.at("x"), {2, 4}, {.weight = t.at("w"), .bias = t.at("b")});
       }},
      {"group_norm", [](const Named& t, const json&) {
         return F::group_norm(t.at("x"), 2, {.weight = t.at("w"), .bias = t.at("b")});
       }},
      {"rms_norm", [](const Named& t, const json&) {
         return F::rms_norm(t.at("x"), {4}, {.weight = t.at("w"), .eps = 1e-5});
       }},
      {"embedding", [](const Named& t, const json&) {
         return F::embedding(t.at("idx"), t.at("w"), {.padding_idx = 4, .scale_grad_by_freq = true});
       }},
      {"sdpa", [](const Named& t, const json& a) {
         return F::scaled_dot_product_attention(t.at("q"), t.at("k"), t.at("v"),
                                                {.is_causal = a.value("causal", false)});
       }},
      {"cross_entropy", [](const Named& t, const json&) {
         return F::cross_entropy(t.at("x"), t.at("y"), {.weight = t.at("wt"), .ignore_index = 3,
                                                        .label_smoothing = 0.2});
       }},
      {"cross_entropy_none", [](const Named& t, const json&) {
         return F::cross_entropy(t.at("x"), t.at("y"), {.reduction = "none"});
       }},
      {"cross_entropy_prob", [](const Named& t, const json&) {
         return F::cross_entropy(t.at("x"), t.at("p"), {.label_smoothing = 0.1});
       }},
      {"nll_loss", [](const Named& t, const json&) {
         return F::nll_loss(t.at("x"), t.at("y"), {.weight = t.at("wt").slice(0, 0, 3)});
       }},
      {"mse_loss", [](const Named& t, const json&) { return F::mse_loss(t.at("x"), t.at("y")); }},
      {"l1_loss", [](const Named& t, const json&) {
         return F::l1_loss(t.at("x"), t.at("y"), {.reduction = "sum"});
       }},
      {"smooth_l1_loss", [](const Named& t, const json&) {
         return F::smooth_l1_loss(t.at("x"), t.at("y"), {.beta = 0.7});
       }},
      {"huber_loss", [](const Named& t, const json&) {
         return F::huber_loss(t.at("x"), t.at("y"), {.reduction = "sum", .delta = 0.8});
       }},
      {"bce", [](const Named& t, const json&) {
         return F::binary_cross_entropy(t.at("x"), t.at("y"), {.weight = t.at("wt")});
       }},
      {"bce_with_logits", [](const Named& t, const json&) {
         return F::binary_cross_entropy_with_logits(t.at("x"), t.at("y"),
                                                    {.weight = t.at("wt"), .pos_weight = t.at("pw")});
       }},
      {"kl_div", [](const Named& t, const json&) {
         return F::kl_div(t.at("x"), t.at("y"), {.reduction = "batchmean"});
       }},
      {"cosine_similarity", [](const Named& t, const json&) {
         return F::cosine_similarity(t.at("x"), t.at("y"), {.dim = 1});
       }},
      {"pairwise_distance", [](const Named& t, const json&) {
         return F::pairwise_distance(t.at("x"), t.at("y"), {.p = 3.0});
       }},
  };
  return rows;
}

// The mismatches of one case ("" when it matches PyTorch to 1e-10).
std::string golden_mismatches(const json& c) {
  Named in;
  std::set<std::string> consts(c["const"].begin(), c["const"].end());
  for (auto& [k, v] : c["inputs"].items()) {
    Tensor t = test::golden_tensor(v);
    if (t.dtype() == kFloat64 && !consts.count(k)) t.requires_grad_();
    in[k] = t;
  }
  const Tensor out = golden_rows().at(c["name"])(in, c["args"]);
  std::ostringstream err;
  auto compare = [&](const Tensor& got, const json& want, const std::string& what) {
    if (!got.defined()) {
      err << what << ": undefined; ";
      return;
    }
    const std::vector<int64_t> shape = want["shape"];
    if (got.sizes().vec() != shape) {
      err << what << ": shape " << got.sizes() << "; ";
      return;
    }
    const std::string bad = test::mismatches(got.to(kFloat64).contiguous().tolist<double>(),
                                             test::golden_numbers(want["data"]),
                                             test::Tolerance{1e-8, 1e-10}, 1);
    if (!bad.empty()) err << what << ": " << bad << "; ";
  };
  compare(out, c["out"], "out");
  if (!out.requires_grad()) return err.str() + "output does not require grad";
  std::vector<Tensor> leaves;
  std::vector<std::string> names;
  for (auto& [k, v] : c["grads"].items()) leaves.push_back(in.at(k)), names.push_back(k);
  const std::vector<Tensor> grads =
      autograd::grad({out}, leaves, {.grad_outputs = {test::golden_tensor(c["grad_out"])},
                                     .allow_unused = true});
  for (size_t i = 0; i < leaves.size(); ++i)
    compare(grads[i], c["grads"][names[i]], "grad_" + names[i]);
  return err.str();
}


TEST(NNGrad, EmbeddingPaddingRowGetsNoGradientAndFreqScales) {
  Tensor w = ones({4, 2}, {.dtype = kFloat64, .requires_grad = true});
  const Tensor idx = tensor({1, 3, 1, 0}, {.dtype = kInt64});
  Tensor out = F::embedding(idx, w, {.padding_idx = 3});
  EXPECT_EQ(out.grad_fn()->name(), "EmbeddingBackward0");
  out.sum().backward();
  EXPECT_EQ(w.grad().tolist<double>(), (std::vector<double>{1, 1, 2, 2, 0, 0, 0, 0}));
  Tensor w2 = ones({4, 2}, {.dtype = kFloat64, .requires_grad = true});
  F::embedding(idx, w2, {.scale_grad_by_freq = true}).sum().backward();
  EXPECT_EQ(w2.grad().tolist<double>(), (std::vector<double>{1, 1, 1, 1, 0, 0, 1, 1}));
}

TEST(NNGrad, DropoutGradientIsTheSavedScaledMask) {
  Tensor x = ones({200}, {.dtype = kFloat64, .requires_grad = true});
  Generator gen(11);
  Tensor y = F::dropout(x, {.p = 0.25, .training = true, .generator = &gen});
  y.sum().backward();
  // x is all ones, so y is the mask: the gradient is exactly it (0 or 1 / 0.75).
  EXPECT_EQ(x.grad().tolist<double>(), y.detach().tolist<double>());
  for (double v : x.grad().tolist<double>()) EXPECT_TRUE(v == 0 || std::abs(v - 1 / 0.75) < 1e-15);
  Tensor z = ones({3}, {.requires_grad = true});
  EXPECT_FALSE(F::dropout(z, {.training = false}).grad_fn());  // eval: the input itself
}

// float32 through the fused kernel against the float64 result (a CNN's usual case).
TEST(NNGrad, BatchNormFusedBackwardFloat32MatchesFloat64) {
  manual_seed(0);
  const Tensor x64 = randn({8, 4, 7, 7}, {.dtype = kFloat64}) * 3 + 5;
  const Tensor g64 = randn({8, 4, 7, 7}, {.dtype = kFloat64});
  const Tensor w64 = randn({4}, {.dtype = kFloat64}), b64 = randn({4}, {.dtype = kFloat64});
  auto grads = [&](Dtype dt, bool training) {
    Tensor x = x64.to(dt).detach().requires_grad_(), w = w64.to(dt).detach().requires_grad_();
    Tensor b = b64.to(dt).detach().requires_grad_();
    Tensor rm = zeros({4}, {.dtype = dt}), rv = ones({4}, {.dtype = dt}) * 9;
    F::batch_norm(x, rm, rv, {.weight = w, .bias = b, .training = training}).backward(
        {.gradient = g64.to(dt)});
    return std::vector<Tensor>{x.grad(), w.grad(), b.grad()};
  };
  for (bool training : {true, false}) {
    const auto f32 = grads(kFloat32, training), f64 = grads(kFloat64, training);
    for (size_t i = 0; i < 3; ++i)
      EXPECT_TRUE(allclose(f32[i].to(kFloat64), f64[i], 1e-4, 1e-4))
          << "training " << training << " gradient " << i;
  }
}

TEST(NNGrad, BatchNormEvalTreatsRunningStatsAsConstants) {
  Tensor x = tensor({{{1.0, 2.0}, {3.0, 4.0}}, {{5.0, 6.0}, {7.0, 8.0}}}, {.dtype = kFloat64}).requires_grad_();
  Tensor rm = tensor({0.5, -1.0}, {.dtype = kFloat64}), rv = tensor({4.0, 0.25}, {.dtype = kFloat64});
  F::batch_norm(x, rm, rv, {.eps = 0}).sum().backward();
  // d/dx = 1 / sqrt(running_var): 0.5 for channel 0, 2 for channel 1.
  EXPECT_EQ(x.grad().tolist<double>(), (std::vector<double>{0.5, 0.5, 2, 2, 0.5, 0.5, 2, 2}));
  // Training with running stats updates them but never differentiates through them.
  Tensor y = tensor({{{1.0, 2.0}, {3.0, 4.0}}, {{5.0, 6.0}, {7.0, 8.0}}}, {.dtype = kFloat64}).requires_grad_();
  Tensor rm2 = zeros({2}, {.dtype = kFloat64}), rv2 = ones({2}, {.dtype = kFloat64});
  Tensor out = F::batch_norm(y, rm2, rv2, {.training = true});
  EXPECT_FALSE(rm2.requires_grad());
  out.pow(2).sum().backward();
  EXPECT_TRUE(y.grad().defined());
}

TEST(NNGrad, MaxPoolGradientGoesToTheArgmaxOnly) {
  Tensor x = tensor({{{1.0, 5.0, 2.0, 2.0}, {0.0, 3.0, 7.0, 1.0}}}, {.dtype = kFloat64})
                 .requires_grad_();
  Tensor y = F::max_pool2d(x, 2);
  EXPECT_EQ(y.grad_fn()->name(), "MaxPool2DWithIndicesBackward0");
  y.sum().backward();
  EXPECT_EQ(x.grad().tolist<double>(), (std::vector<double>{0, 1, 0, 0, 0, 0, 1, 0}));
}

TEST(NNGrad, CrossEntropyIgnoredTargetsGetZeroGradient) {
  Tensor x = zeros({3, 4}, {.dtype = kFloat64, .requires_grad = true});
  F::cross_entropy(x, tensor({1, -100, 2}, {.dtype = kInt64})).backward();
  const auto g = x.grad().tolist<double>();
  for (int c = 0; c < 4; ++c) EXPECT_EQ(g[size_t(4 + c)], 0.0);
  EXPECT_NEAR(g[1], (0.25 - 1) / 2, 1e-15);  // mean over the two counted rows
}

TEST(NNGrad, ConvolutionNodeAndBiasGradient) {
  Tensor x = ones({1, 1, 3, 3}, {.dtype = kFloat64, .requires_grad = true});
  Tensor w = ones({2, 1, 2, 2}, {.dtype = kFloat64, .requires_grad = true});
  Tensor b = zeros({2}, {.dtype = kFloat64, .requires_grad = true});
  Tensor y = F::conv2d(x, w, {.bias = b});
  EXPECT_EQ(y.grad_fn()->name(), "ConvolutionBackward0");
  EXPECT_EQ(y.grad_fn()->next_functions().size(), 3u);
  y.sum().backward();
  EXPECT_EQ(b.grad().tolist<double>(), (std::vector<double>{4, 4}));
  EXPECT_EQ(w.grad().tolist<double>(), (std::vector<double>{4, 4, 4, 4, 4, 4, 4, 4}));
  EXPECT_EQ(x.grad().tolist<double>(), (std::vector<double>{2, 4, 2, 4, 8, 4, 2, 4, 2}));
}

TEST(NNGrad, GradientsMatchPyTorch) {
  const json cases = test::load_golden("nn_grad.json")["cases"];
  ASSERT_GE(cases.size(), 30u);
  for (const json& c : cases) {
    const std::string label = c["label"];
    std::string bad;
    try {
      bad = golden_mismatches(c);
    } catch (const Error& e) {
      bad = e.what();
    }
    if (!bad.empty()) ADD_FAILURE() << label << ": " << bad;
  }
}

}  // namespace
}  // namespace ember::gradtest
