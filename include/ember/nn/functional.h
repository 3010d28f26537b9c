// torch.nn.functional: the NN kernels as functions, options following PyTorch's keywords.
//   namespace F = ember::nn::functional;
//   F::conv2d(x, w, {.bias = b, .stride = 1, .padding = 1});
#pragma once

#include "ember/nn/functional/conv.h"     // conv1d/2d, conv_transpose2d, pooling, interpolate, pad
#include "ember/nn/functional/layers.h"   // linear, dropout, embedding, norms, attention, distances
#include "ember/nn/functional/loss.h"     // cross_entropy, nll_loss, mse_loss, ...
