// RNN, LSTM, GRU and their cells: parameters registered in PyTorch's order (per layer, per
// direction: weight_ih, weight_hh, bias_ih, bias_hh, weight_hr), so reset_parameters' draws,
// state_dict keys and checkpoints are PyTorch's; the arithmetic is F::rnn's.
#include "ember/nn/layers/rnn.h"

#include <cmath>
#include <sstream>

#include "ember/creation.h"
#include "ember/error.h"
#include "ember/nn/init.h"

namespace ember::nn {
namespace {

namespace F = functional;

int64_t gates_of(F::RnnMode mode) {
  return mode == F::RnnMode::kLstm ? 4 : mode == F::RnnMode::kGru ? 3 : 1;
}

const char* name_of(F::RnnMode mode) {
  switch (mode) {
    case F::RnnMode::kLstm: return "LSTM";
    case F::RnnMode::kGru: return "GRU";
    default: return "RNN";
  }
}

F::RnnMode simple_mode(const std::string& nonlinearity, const char* op) {
  if (nonlinearity == "tanh") return F::RnnMode::kRnnTanh;
  if (nonlinearity == "relu") return F::RnnMode::kRnnRelu;
  fail(op, "Unknown nonlinearity '", nonlinearity, "' (expected 'tanh' or 'relu')");
}

/// Every parameter ~ U(±1/√hidden_size), in registration order (PyTorch's RNNBase and
/// RNNCellBase reset_parameters).
void uniform_by_hidden_size(Module& m, int64_t hidden_size) {
  const double stdv = hidden_size > 0 ? 1.0 / std::sqrt(double(hidden_size)) : 0.0;
  for (Tensor& p : m.parameters()) init::uniform_(p, -stdv, stdv);
}

}  // namespace

RNNImplBase::RNNImplBase(F::RnnMode mode, int64_t input_size, int64_t hidden_size,
                         const Config& c)
    : mode(mode),
      input_size(input_size),
      hidden_size(hidden_size),
      num_layers(c.num_layers),
      proj_size(c.proj_size),
      bias(c.bias),
      batch_first(c.batch_first),
      bidirectional(c.bidirectional),
      dropout(c.dropout) {
  const char* op = name_of(mode);
  EMBER_CHECK(input_size > 0 && hidden_size > 0, op,
              "input_size and hidden_size must be positive, got ", input_size, " and ",
              hidden_size);
  EMBER_CHECK(num_layers >= 1, op, "num_layers must be at least 1, got ", num_layers);
  EMBER_CHECK(dropout >= 0 && dropout <= 1, op,
              "dropout should be a number in range [0, 1] representing the probability of an "
              "element being zeroed, got ",
              dropout);
  EMBER_CHECK(proj_size >= 0, op, "proj_size should be a positive integer or zero to disable "
              "projections, got ", proj_size);
  EMBER_CHECK(proj_size < hidden_size, op, "proj_size has to be smaller than hidden_size, got ",
              proj_size, " and ", hidden_size);
  const int64_t directions = bidirectional ? 2 : 1;
  const int64_t gate_size = gates_of(mode) * hidden_size;
  const int64_t out_size = proj_size > 0 ? proj_size : hidden_size;
  for (int64_t layer = 0; layer < num_layers; ++layer) {
    for (int64_t d = 0; d < directions; ++d) {
      const std::string suffix = "_l" + std::to_string(layer) + (d == 1 ? "_reverse" : "");
      const int64_t layer_input = layer == 0 ? input_size : out_size * directions;
      F::RnnCellWeights w;
      w.w_ih = register_parameter("weight_ih" + suffix, empty({gate_size, layer_input}));
      w.w_hh = register_parameter("weight_hh" + suffix, empty({gate_size, out_size}));
      if (bias) {
        w.b_ih = register_parameter("bias_ih" + suffix, empty({gate_size}));
        w.b_hh = register_parameter("bias_hh" + suffix, empty({gate_size}));
      }
      if (proj_size > 0)
        w.w_hr = register_parameter("weight_hr" + suffix, empty({proj_size, hidden_size}));
      cells_.push_back(w);
    }
  }
  reset_parameters();
}

void RNNImplBase::reset_parameters() { uniform_by_hidden_size(*this, hidden_size); }

std::string RNNImplBase::extra_repr() const {
  std::ostringstream os;
  os << input_size << ", " << hidden_size;
  if (proj_size != 0) os << ", proj_size=" << proj_size;
  if (num_layers != 1) os << ", num_layers=" << num_layers;
  if (!bias) os << ", bias=False";
  if (batch_first) os << ", batch_first=True";
  if (dropout != 0) os << ", dropout=" << dropout;
  if (bidirectional) os << ", bidirectional=True";
  return os.str();
}

F::RnnOutput RNNImplBase::run(const Tensor& input, const Tensor& h0, const Tensor& c0) {
  return F::rnn(mode, input, h0, c0, cells_,
                {.num_layers = num_layers,
                 .bidirectional = bidirectional,
                 .batch_first = batch_first,
                 .dropout = dropout,
                 .training = is_training()},
                name_of(mode));
}

RNNImpl::RNNImpl(int64_t input_size, int64_t hidden_size, RNNOptions o)
    : RNNImplBase(simple_mode(o.nonlinearity, "RNN"), input_size, hidden_size,
                  {o.num_layers, o.bias, o.batch_first, o.dropout, o.bidirectional, 0}) {}

std::tuple<Tensor, Tensor> RNNImpl::forward(const Tensor& input, const Tensor& hx) {
  F::RnnOutput out = run(input, hx, {});
  return {out.output, out.h_n};
}

LSTMImpl::LSTMImpl(int64_t input_size, int64_t hidden_size, LSTMOptions o)
    : RNNImplBase(F::RnnMode::kLstm, input_size, hidden_size,
                  {o.num_layers, o.bias, o.batch_first, o.dropout, o.bidirectional,
                   o.proj_size}) {}

std::tuple<Tensor, std::tuple<Tensor, Tensor>> LSTMImpl::forward(
    const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx) {
  F::RnnOutput out = hx ? run(input, std::get<0>(*hx), std::get<1>(*hx)) : run(input, {}, {});
  return {out.output, {out.h_n, out.c_n}};
}

GRUImpl::GRUImpl(int64_t input_size, int64_t hidden_size, GRUOptions o)
    : RNNImplBase(F::RnnMode::kGru, input_size, hidden_size,
                  {o.num_layers, o.bias, o.batch_first, o.dropout, o.bidirectional, 0}) {}

std::tuple<Tensor, Tensor> GRUImpl::forward(const Tensor& input, const Tensor& hx) {
  F::RnnOutput out = run(input, hx, {});
  return {out.output, out.h_n};
}

// ── cells ─────────────────────────────────────────────────────────────────────────────────────

RNNCellImplBase::RNNCellImplBase(const char* op, int64_t input_size, int64_t hidden_size,
                                 bool bias, int64_t gates)
    : input_size(input_size), hidden_size(hidden_size), bias(bias) {
  EMBER_CHECK(input_size > 0 && hidden_size > 0, op,
              "input_size and hidden_size must be positive, got ", input_size, " and ",
              hidden_size);
  weight_ih = register_parameter("weight_ih", empty({gates * hidden_size, input_size}));
  weight_hh = register_parameter("weight_hh", empty({gates * hidden_size, hidden_size}));
  bias_ih = register_parameter("bias_ih", bias ? empty({gates * hidden_size}) : Tensor());
  bias_hh = register_parameter("bias_hh", bias ? empty({gates * hidden_size}) : Tensor());
  reset_parameters();
}

void RNNCellImplBase::reset_parameters() { uniform_by_hidden_size(*this, hidden_size); }

std::string RNNCellImplBase::extra_repr() const {
  std::ostringstream os;
  os << input_size << ", " << hidden_size;
  if (!bias) os << ", bias=False";
  return os.str();
}

RNNCellImpl::RNNCellImpl(int64_t input_size, int64_t hidden_size, RNNCellOptions o)
    : RNNCellImplBase("RNNCell", input_size, hidden_size, o.bias, 1), nonlinearity(o.nonlinearity) {
  simple_mode(nonlinearity, "RNNCell");
}

Tensor RNNCellImpl::forward(const Tensor& input, const Tensor& hx) {
  return simple_mode(nonlinearity, "RNNCell") == F::RnnMode::kRnnRelu
             ? F::rnn_relu_cell(input, hx, weights())
             : F::rnn_tanh_cell(input, hx, weights());
}

std::string RNNCellImpl::extra_repr() const {
  std::string s = RNNCellImplBase::extra_repr();
  return nonlinearity == "tanh" ? s : s + ", nonlinearity=" + nonlinearity;
}

LSTMCellImpl::LSTMCellImpl(int64_t input_size, int64_t hidden_size, LSTMCellOptions o)
    : RNNCellImplBase("LSTMCell", input_size, hidden_size, o.bias, 4) {}

std::tuple<Tensor, Tensor> LSTMCellImpl::forward(const Tensor& input,
                                                 std::optional<std::tuple<Tensor, Tensor>> hx) {
  auto [h, c] = hx ? F::lstm_cell(input, std::get<0>(*hx), std::get<1>(*hx), weights())
                   : F::lstm_cell(input, {}, {}, weights());
  return {h, c};
}

GRUCellImpl::GRUCellImpl(int64_t input_size, int64_t hidden_size, GRUCellOptions o)
    : RNNCellImplBase("GRUCell", input_size, hidden_size, o.bias, 3) {}

Tensor GRUCellImpl::forward(const Tensor& input, const Tensor& hx) {
  return F::gru_cell(input, hx, weights());
}

}  // namespace ember::nn
