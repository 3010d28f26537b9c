// Dropout (src/ops/dropout.cpp) in the form autograd needs: returning its scaled mask.
#pragma once

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

}  // namespace ember::nn::functional
