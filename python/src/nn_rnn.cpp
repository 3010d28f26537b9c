// The recurrent ops (ember._C._nn.rnn and the *_cell functions) over F::rnn and its cells:
// torch.lstm / torch.gru / torch.rnn_tanh / torch.rnn_relu take PyTorch's flat parameter list
// (per layer and direction: w_ih, w_hh[, b_ih, b_hh][, w_hr]), which is grouped here into cells.
#include "common.h"

namespace ember::python {
namespace {

namespace F = nn::functional;

F::RnnMode mode_of(const std::string& mode) {
  if (mode == "LSTM") return F::RnnMode::kLstm;
  if (mode == "GRU") return F::RnnMode::kGru;
  if (mode == "RNN_TANH") return F::RnnMode::kRnnTanh;
  if (mode == "RNN_RELU") return F::RnnMode::kRnnRelu;
  throw py::value_error("Unrecognized RNN mode: " + mode);
}

/// PyTorch's flat weights grouped per cell: 2 (no biases) or 4 tensors, plus w_hr for an LSTM
/// with projections.
std::vector<F::RnnCellWeights> group_cells(const std::vector<Tensor>& flat, bool has_biases,
                                           bool has_projections, const char* op) {
  const size_t per_cell = (has_biases ? 4 : 2) + (has_projections ? 1 : 0);
  if (flat.empty() || flat.size() % per_cell != 0)
    throw py::value_error(std::string(op) + ": expected a multiple of " +
                          std::to_string(per_cell) + " weights, got " +
                          std::to_string(flat.size()));
  std::vector<F::RnnCellWeights> cells;
  for (size_t i = 0; i < flat.size(); i += per_cell) {
    F::RnnCellWeights w{flat[i], flat[i + 1]};
    size_t next = i + 2;
    if (has_biases) {
      w.b_ih = flat[next++];
      w.b_hh = flat[next++];
    }
    if (has_projections) w.w_hr = flat[next];
    cells.push_back(w);
  }
  return cells;
}

Tensor optional_tensor(py::handle h, const char* op, const char* arg) {
  return h.is_none() ? Tensor() : to_tensor(h, op, arg);
}

}  // namespace

void bind_nn_rnn(py::module_& parent) {
  py::module_ m = parent.attr("_nn");
  m.def(
      "rnn",
      [](const std::string& mode, const Tensor& input, py::handle hx, py::handle cx,
         py::handle params, bool has_biases, int64_t num_layers, double dropout, bool train,
         bool bidirectional, bool batch_first, std::optional<bool> has_projections,
         py::handle generator) {
        const char* op = mode == "LSTM" ? "LSTM" : mode == "GRU" ? "GRU" : "RNN";
        Tensor h0 = optional_tensor(hx, op, "hx"), c0 = optional_tensor(cx, op, "cx");
        // Without has_projections (torch.lstm), an LSTM has projections when its h is narrower
        // than its c (ATen's test).
        const bool projections =
            has_projections.value_or(h0.defined() && c0.defined() && h0.dim() == c0.dim() &&
                                     h0.size(-1) != c0.size(-1));
        std::vector<F::RnnCellWeights> cells =
            group_cells(to_tensor_list(params, op, "params"), has_biases, projections, op);
        F::RnnOptions o{.num_layers = num_layers,
                        .bidirectional = bidirectional,
                        .batch_first = batch_first,
                        .dropout = dropout,
                        .training = train,
                        .generator = generator.is_none() ? nullptr : generator.cast<Generator*>()};
        F::RnnOutput out = without_gil(work_product(input.numel(), cells.front().w_ih.size(0)), [&] {
          return F::rnn(mode_of(mode), input, h0, c0, cells, o, op);
        });
        return py::make_tuple(wrap(out.output), wrap(out.h_n), wrap(out.c_n));
      },
      py::arg("mode"), py::arg("input"), py::arg("hx"), py::arg("cx"), py::arg("params"),
      py::arg("has_biases"), py::arg("num_layers"), py::arg("dropout"), py::arg("train"),
      py::arg("bidirectional"), py::arg("batch_first"), py::arg("has_projections") = py::none(),
      py::arg("generator") = py::none());

  auto cell_weights = [](const Tensor& w_ih, const Tensor& w_hh, py::handle b_ih, py::handle b_hh,
                         const char* op) {
    return F::RnnCellWeights{w_ih, w_hh, optional_tensor(b_ih, op, "b_ih"),
                             optional_tensor(b_hh, op, "b_hh")};
  };
  using Cell = Tensor (*)(const Tensor&, const Tensor&, const F::RnnCellWeights&);
  const std::pair<const char*, Cell> cells[] = {{"rnn_tanh_cell", &F::rnn_tanh_cell},
                                                {"rnn_relu_cell", &F::rnn_relu_cell},
                                                {"gru_cell", &F::gru_cell}};
  for (const auto& entry : cells) {
    // Not a structured binding: Clang 14 lets no lambda capture one.
    const char* name = entry.first;
    const Cell cell = entry.second;
    m.def(
        name,
        [name, cell, cell_weights](const Tensor& input, py::handle hx, const Tensor& w_ih,
                                   const Tensor& w_hh, py::handle b_ih, py::handle b_hh) {
          return cell(input, optional_tensor(hx, name, "hx"),
                      cell_weights(w_ih, w_hh, b_ih, b_hh, name));
        },
        py::arg("input"), py::arg("hx"), py::arg("w_ih"), py::arg("w_hh"),
        py::arg("b_ih") = py::none(), py::arg("b_hh") = py::none());
  }
  m.def(
      "lstm_cell",
      [cell_weights](const Tensor& input, py::handle hx, py::handle cx, const Tensor& w_ih,
                     const Tensor& w_hh, py::handle b_ih, py::handle b_hh) {
        F::RnnCellWeights w = cell_weights(w_ih, w_hh, b_ih, b_hh, "lstm_cell");
        auto [h, c] = F::lstm_cell(input, optional_tensor(hx, "lstm_cell", "hx"),
                                   optional_tensor(cx, "lstm_cell", "cx"), w);
        return py::make_tuple(wrap(h), wrap(c));
      },
      py::arg("input"), py::arg("hx"), py::arg("cx"), py::arg("w_ih"), py::arg("w_hh"),
      py::arg("b_ih") = py::none(), py::arg("b_hh") = py::none());
}

}  // namespace ember::python
