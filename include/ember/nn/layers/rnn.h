// The recurrent layers and cells: RNN, LSTM, GRU, RNNCell, LSTMCell, GRUCell (torch.nn's), with
// PyTorch's parameter names (weight_ih_l0, ..., _reverse), initialisation (every parameter
// ~ U(±1/√hidden_size), in registration order) and results.
//   nn::LSTM lstm(10, 20, {.num_layers = 2, .batch_first = true});
//   auto [out, state] = lstm(x);  auto [h_n, c_n] = state;
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/nn/functional/rnn.h"
#include "ember/nn/module.h"

namespace ember::nn {

struct RNNOptions {
  int64_t num_layers = 1;
  std::string nonlinearity = "tanh";  // or "relu"
  bool bias = true;
  bool batch_first = false;
  double dropout = 0.0;  // after every layer but the last, when training
  bool bidirectional = false;
};

struct LSTMOptions {
  int64_t num_layers = 1;
  bool bias = true;
  bool batch_first = false;
  double dropout = 0.0;
  bool bidirectional = false;
  int64_t proj_size = 0;  // > 0: h is projected to proj_size (LSTM with projections)
};

struct GRUOptions {
  int64_t num_layers = 1;
  bool bias = true;
  bool batch_first = false;
  double dropout = 0.0;
  bool bidirectional = false;
};

/// What RNN, LSTM and GRU share: the configuration, the weights of every layer and direction,
/// and the run over a sequence.
class RNNImplBase : public Module {
 public:
  /// Redraws every parameter from U(±1/√hidden_size), in registration order.
  void reset_parameters();
  std::string extra_repr() const override;
  /// One entry per layer and direction, in PyTorch's _flat_weights order.
  const std::vector<functional::RnnCellWeights>& cell_weights() const { return cells_; }

  functional::RnnMode mode;
  int64_t input_size, hidden_size, num_layers, proj_size;
  bool bias, batch_first, bidirectional;
  double dropout;

 protected:
  struct Config {
    int64_t num_layers;
    bool bias, batch_first;
    double dropout;
    bool bidirectional;
    int64_t proj_size;
  };
  RNNImplBase(functional::RnnMode mode, int64_t input_size, int64_t hidden_size,
              const Config& config);
  functional::RnnOutput run(const Tensor& input, const Tensor& h0, const Tensor& c0);

 private:
  std::vector<functional::RnnCellWeights> cells_;
};

/// Elman RNN: h_t = tanh(x_t W_ihᵀ + b_ih + h_{t-1} W_hhᵀ + b_hh) (or relu), layer after layer.
class RNNImpl : public RNNImplBase {
 public:
  RNNImpl(int64_t input_size, int64_t hidden_size, RNNOptions options = {});
  /// input (T, B, in), (B, T, in) when batch_first, or (T, in); hx (D*num_layers, B, H) or
  /// undefined for zeros -> (output, h_n).
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx = {});
};

class RNN : public ModuleHolder<RNNImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  RNN(int64_t input_size, int64_t hidden_size, RNNOptions options = {})
      : ModuleHolder(std::make_shared<RNNImpl>(input_size, hidden_size, options)) {}
};

class LSTMImpl : public RNNImplBase {
 public:
  LSTMImpl(int64_t input_size, int64_t hidden_size, LSTMOptions options = {});
  /// input as RNN's; hx = (h_0, c_0) or none for zeros -> (output, (h_n, c_n)).
  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward(
      const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx = {});
};

class LSTM : public ModuleHolder<LSTMImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  LSTM(int64_t input_size, int64_t hidden_size, LSTMOptions options = {})
      : ModuleHolder(std::make_shared<LSTMImpl>(input_size, hidden_size, options)) {}
};

class GRUImpl : public RNNImplBase {
 public:
  GRUImpl(int64_t input_size, int64_t hidden_size, GRUOptions options = {});
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx = {});
};

class GRU : public ModuleHolder<GRUImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  GRU(int64_t input_size, int64_t hidden_size, GRUOptions options = {})
      : ModuleHolder(std::make_shared<GRUImpl>(input_size, hidden_size, options)) {}
};

// ── cells: one step ───────────────────────────────────────────────────────────────────────────

struct RNNCellOptions {
  bool bias = true;
  std::string nonlinearity = "tanh";  // or "relu"
};
struct LSTMCellOptions {
  bool bias = true;
};
struct GRUCellOptions {
  bool bias = true;
};

/// What the cells share: weight_ih (G*H, in), weight_hh (G*H, H), bias_ih, bias_hh.
class RNNCellImplBase : public Module {
 public:
  void reset_parameters();
  std::string extra_repr() const override;

  int64_t input_size, hidden_size;
  bool bias;
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;  // biases undefined when bias is false

 protected:
  RNNCellImplBase(const char* op, int64_t input_size, int64_t hidden_size, bool bias,
                  int64_t gates);
  functional::RnnCellWeights weights() const { return {weight_ih, weight_hh, bias_ih, bias_hh}; }
};

class RNNCellImpl : public RNNCellImplBase {
 public:
  RNNCellImpl(int64_t input_size, int64_t hidden_size, RNNCellOptions options = {});
  /// input (B, in) or (in); hx (B, H) or (H), undefined for zeros -> h'.
  Tensor forward(const Tensor& input, const Tensor& hx = {});
  std::string extra_repr() const override;
  std::string nonlinearity;
};

class RNNCell : public ModuleHolder<RNNCellImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  RNNCell(int64_t input_size, int64_t hidden_size, RNNCellOptions options = {})
      : ModuleHolder(std::make_shared<RNNCellImpl>(input_size, hidden_size, options)) {}
};

class LSTMCellImpl : public RNNCellImplBase {
 public:
  LSTMCellImpl(int64_t input_size, int64_t hidden_size, LSTMCellOptions options = {});
  /// -> (h', c').
  std::tuple<Tensor, Tensor> forward(const Tensor& input,
                                     std::optional<std::tuple<Tensor, Tensor>> hx = {});
};

class LSTMCell : public ModuleHolder<LSTMCellImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  LSTMCell(int64_t input_size, int64_t hidden_size, LSTMCellOptions options = {})
      : ModuleHolder(std::make_shared<LSTMCellImpl>(input_size, hidden_size, options)) {}
};

class GRUCellImpl : public RNNCellImplBase {
 public:
  GRUCellImpl(int64_t input_size, int64_t hidden_size, GRUCellOptions options = {});
  Tensor forward(const Tensor& input, const Tensor& hx = {});
};

class GRUCell : public ModuleHolder<GRUCellImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  GRUCell(int64_t input_size, int64_t hidden_size, GRUCellOptions options = {})
      : ModuleHolder(std::make_shared<GRUCellImpl>(input_size, hidden_size, options)) {}
};

}  // namespace ember::nn
