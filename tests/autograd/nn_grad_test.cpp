// Gradients of the nn kernels (src/ops/conv.cpp, pool.cpp, resize.cpp, norm.cpp, dropout.cpp,
// loss.cpp): gradcheck over a table, and the gradients compared with PyTorch 1.13's
// (tests/golden/nn_grad.json, from tests/golden/gen_nn_grad.py).
#include "grad_table.h"

#include "ember/nn/functional.h"

namespace ember::gradtest {
namespace {

namespace F = nn::functional;

const GradCase kCases[] = {
    // ── convolution: ConvolutionBackward0 runs the conv kernels: first order only ──
    {"conv2d", "ConvolutionBackward0", [] { return In{x({2, 3, 5, 5}), x({4, 3, 3, 3}), x({4})}; },
     [](const In& t) { return F::conv2d(t[0], t[1], {.bias = t[2]}); }, false},
    {"conv2d_stride_pad_dil", "ConvolutionBackward0",
     [] { return In{x({1, 2, 7, 6}), x({2, 2, 3, 2})}; },
     [](const In& t) {
       return F::conv2d(t[0], t[1], {.stride = {2, 1}, .padding = {1, 2}, .dilation = {2, 1}});
     }, false},
    {"conv2d_groups_same", "ConvolutionBackward0",
     [] { return In{x({2, 4, 5, 4}), x({6, 2, 2, 3}), x({6})}; },
     [](const In& t) {
       return F::conv2d(t[0], t[1], {.bias = t[2], .padding = "same", .groups = 2});
     }, false},
    {"conv2d_unbatched_const_weight", "ConvolutionBackward0",
     [] { return In{x({2, 4, 4}), c({3, 2, 2, 2})}; },
     [](const In& t) { return F::conv2d(t[0], t[1]); }, false},
    {"conv1d", "ConvolutionBackward0", [] { return In{x({2, 3, 9}), x({4, 3, 3}), x({4})}; },
     [](const In& t) {
       return F::conv1d(t[0], t[1], {.bias = t[2], .stride = 2, .padding = 1, .dilation = 2});
     }, false},
    {"conv_transpose2d", "ConvolutionBackward0",
     [] { return In{x({2, 4, 3, 3}), x({4, 3, 3, 2}), x({6})}; },
     [](const In& t) {
       return F::conv_transpose2d(t[0], t[1], {.bias = t[2], .stride = 2, .padding = 1,
                                               .output_padding = 1, .groups = 2});
     }, false},
    {"conv_transpose1d", "ConvolutionBackward0", [] { return In{x({1, 2, 5}), x({2, 3, 3})}; },
     [](const In& t) { return F::conv_transpose1d(t[0], t[1], {.stride = 2, .dilation = 2}); },
     false},
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
};

EMBER_GRAD_TABLE(NN, kCases);

}  // namespace
}  // namespace ember::gradtest
