// torch.nn.functional: the NN kernels as functions, options following PyTorch's keywords.
//   namespace F = ember::nn::functional;
//   F::conv2d(x, w, {.bias = b, .stride = 1, .padding = 1});
#pragma once

#include "ember/nn/functional/conv.h"     // conv1d/2d, conv_transpose2d, pooling, interpolate, pad
#include "ember/nn/functional/layers.h"   // linear, dropout, embedding, norms, attention, distances
#include "ember/nn/functional/loss.h"     // cross_entropy, nll_loss, mse_loss, ...
#include "ember/nn/functional/rnn.h"      // rnn (RNN, LSTM, GRU), rnn_tanh_cell, lstm_cell, ...

namespace ember {

// LibTorch also spells these at namespace level (torch::nll_loss, torch::max_pool2d,
// torch::dropout(x, p, train)), as its MNIST example writes them.
using nn::functional::avg_pool2d;
using nn::functional::binary_cross_entropy;
using nn::functional::max_pool2d;
using nn::functional::mse_loss;
using nn::functional::nll_loss;
/// torch::dropout(input, p, train).
inline Tensor dropout(const Tensor& input, double p, bool train) {
  return nn::functional::dropout(input, {.p = p, .training = train});
}

}  // namespace ember
