// The recurrent cells and layers, composed of linear, the gate activations and the elementwise
// ops, so autograd differentiates them as PyTorch's CPU path does (aten/src/ATen/native/RNN.cpp:
// FullLayer precomputes the input projection of every step in one GEMM; each step then adds the
// hidden projection, gates, and for a reversed direction walks the steps backwards).
#include "ember/nn/functional/rnn.h"

#include <sstream>
#include <string>
#include <tuple>

#include "ember/creation.h"
#include "ember/error.h"
#include "ember/linalg.h"
#include "ember/math.h"
#include "ember/nn/functional/layers.h"
#include "ember/shape.h"

namespace ember::nn::functional {
namespace {

int64_t gate_count(RnnMode mode) {
  switch (mode) {
    case RnnMode::kLstm: return 4;
    case RnnMode::kGru: return 3;
    default: return 1;
  }
}

/// "(1, 5, 4)", as PyTorch prints an expected size (a Python tuple).
std::string tuple_text(const std::vector<int64_t>& sizes) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < sizes.size(); ++i) os << (i ? ", " : "") << sizes[i];
  os << (sizes.size() == 1 ? ",)" : ")");
  return os.str();
}

// ── one step, given the input's projection x W_ihᵀ + b_ih ───────────────────────────────────

Tensor hidden_projection(const Tensor& hx, const RnnCellWeights& w) {
  return functional::linear(hx, w.w_hh, w.b_hh);
}

Tensor simple_step(RnnMode mode, const Tensor& projected_input, const Tensor& hx,
                   const RnnCellWeights& w) {
  Tensor pre = hidden_projection(hx, w) + projected_input;
  return mode == RnnMode::kRnnRelu ? relu(pre) : tanh(pre);
}

std::pair<Tensor, Tensor> lstm_step(const Tensor& projected_input, const Tensor& hx,
                                    const Tensor& cx, const RnnCellWeights& w) {
  std::vector<Tensor> gates = chunk(hidden_projection(hx, w) + projected_input, 4, 1);
  Tensor in = sigmoid(gates[0]), forget = sigmoid(gates[1]);
  Tensor cell = tanh(gates[2]), out = sigmoid(gates[3]);
  Tensor cy = forget * cx + in * cell;
  Tensor hy = out * tanh(cy);
  if (w.w_hr.defined()) hy = matmul(hy, w.w_hr.t());
  return {hy, cy};
}

Tensor gru_step(const Tensor& projected_input, const Tensor& hx, const RnnCellWeights& w) {
  std::vector<Tensor> in = chunk(projected_input, 3, 1);
  std::vector<Tensor> hid = chunk(hidden_projection(hx, w), 3, 1);
  Tensor reset = sigmoid(hid[0] + in[0]);
  Tensor update = sigmoid(hid[1] + in[1]);
  Tensor candidate = tanh(in[2] + hid[2] * reset);
  return (hx - candidate) * update + candidate;  // (1 - z) n + z h, in PyTorch's order
}

// ── the cells' checks (ATen's check_rnn_cell_forward_input / _hidden) ─────────────────────────

void check_cell_input(const Tensor& input, const RnnCellWeights& w, const char* op) {
  EMBER_CHECK(input.defined() && w.w_ih.defined() && w.w_hh.defined(), op,
              "expects a defined input, weight_ih and weight_hh");
  EMBER_CHECK(input.dim() == 1 || input.dim() == 2, op,
              "Expected input to be 1-D or 2-D but received ", input.dim(), "-D tensor");
  EMBER_CHECK(input.size(-1) == w.w_ih.size(1), op, "input has inconsistent input_size: got ",
              input.size(-1), " expected ", w.w_ih.size(1));
}

void check_cell_hidden(const Tensor& input, const Tensor& hx, int64_t hidden_size, int index,
                       const char* op) {
  EMBER_CHECK(hx.dim() == input.dim(), op, "Expected hidden", index, " to be ", input.dim(),
              "-D as the input, but got ", hx.dim(), "-D tensor");
  if (input.dim() == 2)
    EMBER_CHECK(input.size(0) == hx.size(0), op, "Input batch size ", input.size(0),
                " doesn't match hidden", index, " batch size ", hx.size(0));
  EMBER_CHECK(hx.size(-1) == hidden_size, op, "hidden", index,
              " has inconsistent hidden_size: got ", hx.size(-1), ", expected ", hidden_size);
}

/// A cell's call made ready for a step: the checks, missing states as zeros, and a 1-D
/// (unbatched) input and its states as a batch of one, which `result` takes away again.
struct CellCall {
  Tensor projected_input, h, c;
  bool unbatched;
  Tensor result(const Tensor& t) const { return unbatched ? t.squeeze(0) : t; }
};

CellCall prepare_cell(const Tensor& input, const Tensor& hx, const Tensor& cx, bool has_cell,
                      const RnnCellWeights& w, const char* op) {
  check_cell_input(input, w, op);
  const int64_t hidden_size = w.w_hh.size(1);
  std::vector<int64_t> state_shape{hidden_size};
  if (input.dim() == 2) state_shape.insert(state_shape.begin(), input.size(0));
  auto state = [&](const Tensor& given, int index) {
    Tensor s = given.defined() ? given : zeros(state_shape, input.options());
    check_cell_hidden(input, s, hidden_size, index, op);
    return input.dim() == 1 ? s.unsqueeze(0) : s;
  };
  const bool unbatched = input.dim() == 1;
  return {functional::linear(unbatched ? input.unsqueeze(0) : input, w.w_ih, w.b_ih),
          state(hx, 0), has_cell ? state(cx, 1) : Tensor(), unbatched};
}

}  // namespace

Tensor rnn_tanh_cell(const Tensor& input, const Tensor& hx, const RnnCellWeights& w) {
  CellCall call = prepare_cell(input, hx, {}, false, w, "RNNCell");
  return call.result(simple_step(RnnMode::kRnnTanh, call.projected_input, call.h, w));
}

Tensor rnn_relu_cell(const Tensor& input, const Tensor& hx, const RnnCellWeights& w) {
  CellCall call = prepare_cell(input, hx, {}, false, w, "RNNCell");
  return call.result(simple_step(RnnMode::kRnnRelu, call.projected_input, call.h, w));
}

std::pair<Tensor, Tensor> lstm_cell(const Tensor& input, const Tensor& hx, const Tensor& cx,
                                    const RnnCellWeights& w) {
  EMBER_CHECK(!w.w_hr.defined(), "LSTMCell", "has no projections (proj_size is LSTM's only)");
  CellCall call = prepare_cell(input, hx, cx, true, w, "LSTMCell");
  auto [hy, cy] = lstm_step(call.projected_input, call.h, call.c, w);
  return {call.result(hy), call.result(cy)};
}

Tensor gru_cell(const Tensor& input, const Tensor& hx, const RnnCellWeights& w) {
  CellCall call = prepare_cell(input, hx, {}, false, w, "GRUCell");
  return call.result(gru_step(call.projected_input, call.h, w));
}

namespace {

struct LayerState {
  Tensor h, c;  // c: the LSTM's only
};

/// One layer in one direction over (T, B, in): the outputs (T, B, H_out) and the final state.
Tensor run_direction(RnnMode mode, const Tensor& input, LayerState& state,
                     const RnnCellWeights& w, bool reverse) {
  std::vector<Tensor> steps = unbind(functional::linear(input, w.w_ih, w.b_ih), 0);
  std::vector<Tensor> outputs(steps.size());
  for (size_t k = 0; k < steps.size(); ++k) {
    const size_t t = reverse ? steps.size() - 1 - k : k;
    if (mode == RnnMode::kLstm) {
      std::tie(state.h, state.c) = lstm_step(steps[t], state.h, state.c, w);
    } else if (mode == RnnMode::kGru) {
      state.h = gru_step(steps[t], state.h, w);
    } else {
      state.h = simple_step(mode, steps[t], state.h, w);
    }
    outputs[t] = state.h;
  }
  return stack(outputs, 0);
}

/// PyTorch's check_forward_args for the state: `expected` sizes, or the message it prints.
void check_state(const Tensor& state, const std::vector<int64_t>& expected, const char* which,
                 const char* op) {
  EMBER_CHECK(state.sizes().vec() == expected, op, "Expected ", which, " size ",
              tuple_text(expected), ", got ", state.sizes());
}

}  // namespace

RnnOutput rnn(RnnMode mode, const Tensor& input_, const Tensor& h0_, const Tensor& c0_,
              const std::vector<RnnCellWeights>& weights, const RnnOptions& options,
              const char* op) {
  const bool lstm = mode == RnnMode::kLstm;
  const int64_t directions = options.bidirectional ? 2 : 1;
  EMBER_CHECK(input_.defined(), op, "expects a defined input");
  // PyTorch's module unsqueezes any input that is not 3-D, then finds it is not.
  EMBER_CHECK(input_.dim() == 2 || input_.dim() == 3, op, "input must have 3 dimensions, got ",
              input_.dim() + 1);
  EMBER_CHECK(options.num_layers >= 1, op, "num_layers must be at least 1, got ",
              options.num_layers);
  EMBER_CHECK(int64_t(weights.size()) == options.num_layers * directions, op, "expects ",
              options.num_layers * directions, " cells of weights (num_layers=",
              options.num_layers, ", bidirectional=", options.bidirectional ? "True" : "False",
              "), got ", weights.size());
  EMBER_CHECK(options.dropout >= 0 && options.dropout <= 1, op,
              "dropout should be a number in range [0, 1], got ", options.dropout);
  for (const RnnCellWeights& w : weights)
    EMBER_CHECK(w.w_ih.defined() && w.w_hh.defined() && w.w_ih.dim() == 2 && w.w_hh.dim() == 2 &&
                    w.w_hh.size(0) == w.w_ih.size(0) && w.w_ih.size(0) % gate_count(mode) == 0,
                op, "expects weight_ih (G*H, in) and weight_hh (G*H, H) with G = ",
                gate_count(mode));
  if (!lstm)
    for (const RnnCellWeights& w : weights)
      EMBER_CHECK(!w.w_hr.defined(), op, "has no projections (proj_size is LSTM's only)");

  // Unbatched input runs as a batch of one (the module's unsqueeze in PyTorch).
  const bool batched = input_.dim() == 3;
  const Tensor& first = weights.front().w_ih;
  const int64_t hidden_size = first.size(0) / gate_count(mode);
  const int64_t out_size = weights.front().w_hr.defined() ? weights.front().w_hr.size(0)
                                                         : hidden_size;
  EMBER_CHECK(lstm || !c0_.defined(), op, "takes no cell state (cx is the LSTM's only)");
  if (lstm && (h0_.defined() || c0_.defined())) {
    EMBER_CHECK(h0_.defined() && c0_.defined(), op, "expects both hx and cx, or neither");
    const int64_t want = batched ? 3 : 2;
    EMBER_CHECK(h0_.dim() == want && c0_.dim() == want, op, "For ",
                batched ? "batched 3-D" : "unbatched 2-D", " input, hx and cx should also be ",
                want, "-D but got (", h0_.dim(), "-D, ", c0_.dim(), "-D) tensors");
  } else if (h0_.defined()) {
    const int64_t want = batched ? 3 : 2;
    EMBER_CHECK(h0_.dim() == want, op, "For ", batched ? "batched 3-D" : "unbatched 2-D",
                " input, hx should also be ", want, "-D but got ", h0_.dim(), "-D tensor");
  }
  const int64_t batch_dim = options.batch_first ? 0 : 1;
  Tensor input = batched ? input_ : input_.unsqueeze(batch_dim);
  Tensor h0 = h0_.defined() && !batched ? h0_.unsqueeze(1) : h0_;
  Tensor c0 = c0_.defined() && !batched ? c0_.unsqueeze(1) : c0_;

  if (options.batch_first) input = input.transpose(0, 1);
  const int64_t batch = input.size(1);
  EMBER_CHECK(input.size(2) == first.size(1), op,
              "input.size(-1) must be equal to input_size. Expected ", first.size(1), ", got ",
              input.size(2));
  const std::vector<int64_t> h_size{options.num_layers * directions, batch, out_size};
  const std::vector<int64_t> c_size{options.num_layers * directions, batch, hidden_size};
  if (h0.defined()) check_state(h0, h_size, lstm ? "hidden[0]" : "hidden", op);
  if (c0.defined()) check_state(c0, c_size, "hidden[1]", op);
  if (!h0.defined()) h0 = zeros(h_size, input.options());
  if (lstm && !c0.defined()) c0 = zeros(c_size, input.options());

  std::vector<Tensor> h_n, c_n;
  Tensor layer_input = input;
  for (int64_t layer = 0; layer < options.num_layers; ++layer) {
    std::vector<Tensor> outputs;
    for (int64_t d = 0; d < directions; ++d) {
      const int64_t cell = layer * directions + d;
      LayerState state{h0[cell], lstm ? c0[cell] : Tensor()};
      outputs.push_back(run_direction(mode, layer_input, state, weights[size_t(cell)], d == 1));
      h_n.push_back(state.h);
      if (lstm) c_n.push_back(state.c);
    }
    layer_input = directions == 1 ? outputs[0] : cat(outputs, 2);
    if (options.dropout > 0 && options.training && layer + 1 < options.num_layers)
      layer_input = dropout(layer_input, {.p = options.dropout, .training = true,
                                          .generator = options.generator});
  }

  RnnOutput result{layer_input, stack(h_n, 0), lstm ? stack(c_n, 0) : Tensor()};
  if (options.batch_first) result.output = result.output.transpose(0, 1);
  if (!batched) {
    result.output = result.output.squeeze(batch_dim);
    result.h_n = result.h_n.squeeze(1);
    if (lstm) result.c_n = result.c_n.squeeze(1);
  }
  return result;
}

}  // namespace ember::nn::functional
