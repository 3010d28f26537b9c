// The recurrent cells and layers as functions (torch's _VF.rnn_tanh / lstm / gru and their
// *_cell ops), with PyTorch 1.13's CPU arithmetic: the input projection of a whole layer is one
// GEMM, then each step adds the hidden projection and applies the gates, so the numbers and the
// gradients (autograd through the same ops) are PyTorch's.
//   F::RnnOutput out = F::rnn(F::RnnMode::kLstm, x, h0, c0, lstm->cell_weights(), {.num_layers = 2});
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "ember/generator.h"
#include "ember/tensor.h"

namespace ember::nn::functional {

enum class RnnMode { kRnnTanh, kRnnRelu, kLstm, kGru };

/// The weights of one cell (one layer in one direction): w_ih (G*H, in), w_hh (G*H, H or
/// proj_size), biases (G*H) or undefined, and for an LSTM with projections w_hr (proj_size, H),
/// else undefined. G is the number of gates: 1 (RNN), 4 (LSTM, i f g o), 3 (GRU, r z n).
struct RnnCellWeights {
  Tensor w_ih, w_hh, b_ih = {}, b_hh = {}, w_hr = {};
};

/// h' = tanh(x W_ihᵀ + b_ih + h W_hhᵀ + b_hh): input (B, in), hx (B, H) -> (B, H).
Tensor rnn_tanh_cell(const Tensor& input, const Tensor& hx, const RnnCellWeights& weights);
/// As rnn_tanh_cell with relu.
Tensor rnn_relu_cell(const Tensor& input, const Tensor& hx, const RnnCellWeights& weights);
/// The LSTM step: input (B, in), hx and cx (B, H) -> (h', c').
std::pair<Tensor, Tensor> lstm_cell(const Tensor& input, const Tensor& hx, const Tensor& cx,
                                    const RnnCellWeights& weights);
/// The GRU step: input (B, in), hx (B, H) -> h'.
Tensor gru_cell(const Tensor& input, const Tensor& hx, const RnnCellWeights& weights);

struct RnnOptions {
  int64_t num_layers = 1;
  bool bidirectional = false;
  bool batch_first = false;
  double dropout = 0.0;  // applied to every layer's output but the last, when training
  bool training = true;
  Generator* generator = nullptr;  // for the dropout
};

struct RnnOutput {
  Tensor output;  // (T, B, D * H_out), or (B, T, ...) when batch_first, or (T, D * H_out)
  Tensor h_n;     // (D * num_layers, B, H_out), or (D * num_layers, H_out) for unbatched input
  Tensor c_n;     // the LSTM's cell state, shaped as h_n with H; undefined for RNN and GRU
};

/// A multi-layer recurrent network over a sequence. input (T, B, in) — (B, T, in) when
/// batch_first — or unbatched (T, in); h0 and c0 (D * num_layers, B, H) or (D * num_layers, H),
/// undefined for zeros (c0 is the LSTM's only); weights: one cell per layer and direction, layer
/// after layer, forward before reverse (PyTorch's _flat_weights order). H_out is proj_size for
/// an LSTM with projections, else H. Errors name the op (`op`, e.g. "LSTM") and PyTorch's text.
RnnOutput rnn(RnnMode mode, const Tensor& input, const Tensor& h0, const Tensor& c0,
              const std::vector<RnnCellWeights>& weights, const RnnOptions& options = {},
              const char* op = "rnn");

}  // namespace ember::nn::functional
