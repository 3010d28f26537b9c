// torch::nn's recurrent layers and cells over ember's (ember/nn/layers/rnn.h), built from
// LibTorch's options or positional sizes, with LibTorch's forward signatures:
//   torch::nn::LSTM lstm(torch::nn::LSTMOptions(10, 20).num_layers(2));
//   auto [out, state] = lstm(x);            // state: std::tuple<Tensor, Tensor> (h_n, c_n)
//   auto [out2, h_n] = torch::nn::GRU(10, 20)(x, h0);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/nn/layers/rnn.h"
#include "torch/enum.h"
#include "torch/nn/modules/utils.h"
#include "torch/nn/options/rnn.h"

namespace torch::nn {

namespace detail {
/// The weights of every layer and direction in one list, LibTorch's flat_weights() order.
std::vector<ember::Tensor> flat_weights(const ember::nn::RNNImplBase& layer);
/// LibTorch's description: "input_size=4, hidden_size=6, num_layers=1, bias=true, ...".
std::string recurrent_repr(const ember::nn::RNNImplBase& layer);
}  // namespace detail

/// The members LibTorch's recurrent layers add to ember's.
#define EMBER_TORCH_RECURRENT_LAYER(Name)                                                    \
  EMBER_TORCH_LAYER_NAME(Name)                                                               \
  std::string extra_repr() const override { return detail::recurrent_repr(*this); }          \
  std::vector<ember::Tensor> all_weights() const { return detail::flat_weights(*this); }     \
  /** Packs the weights for cuDNN: nothing to do for ember's (as LibTorch's on the CPU). */ \
  void flatten_parameters() {}                                                               \
  Name##Options options

class RNNImpl : public ember::nn::RNNImpl {
 public:
  RNNImpl(int64_t input_size, int64_t hidden_size)
      : RNNImpl(RNNOptions(input_size, hidden_size)) {}
  explicit RNNImpl(const RNNOptions& o)
      : ember::nn::RNNImpl(o.input_size(), o.hidden_size(),
                           {.num_layers = o.num_layers(),
                            .nonlinearity = torch::detail::enum_spelling(o.nonlinearity()),
                            .bias = o.bias(),
                            .batch_first = o.batch_first(),
                            .dropout = o.dropout(),
                            .bidirectional = o.bidirectional()}),
        options(o) {}
  EMBER_TORCH_RECURRENT_LAYER(RNN);
};
TORCH_MODULE(RNN);

class LSTMImpl : public ember::nn::LSTMImpl {
 public:
  LSTMImpl(int64_t input_size, int64_t hidden_size)
      : LSTMImpl(LSTMOptions(input_size, hidden_size)) {}
  explicit LSTMImpl(const LSTMOptions& o)
      : ember::nn::LSTMImpl(o.input_size(), o.hidden_size(),
                            {.num_layers = o.num_layers(),
                             .bias = o.bias(),
                             .batch_first = o.batch_first(),
                             .dropout = o.dropout(),
                             .bidirectional = o.bidirectional(),
                             .proj_size = o.proj_size()}),
        options(o) {}
  EMBER_TORCH_RECURRENT_LAYER(LSTM);
};
TORCH_MODULE(LSTM);

class GRUImpl : public ember::nn::GRUImpl {
 public:
  GRUImpl(int64_t input_size, int64_t hidden_size)
      : GRUImpl(GRUOptions(input_size, hidden_size)) {}
  explicit GRUImpl(const GRUOptions& o)
      : ember::nn::GRUImpl(o.input_size(), o.hidden_size(),
                           {.num_layers = o.num_layers(),
                            .bias = o.bias(),
                            .batch_first = o.batch_first(),
                            .dropout = o.dropout(),
                            .bidirectional = o.bidirectional()}),
        options(o) {}
  EMBER_TORCH_RECURRENT_LAYER(GRU);
};
TORCH_MODULE(GRU);

#undef EMBER_TORCH_RECURRENT_LAYER

class RNNCellImpl : public ember::nn::RNNCellImpl {
 public:
  RNNCellImpl(int64_t input_size, int64_t hidden_size)
      : RNNCellImpl(RNNCellOptions(input_size, hidden_size)) {}
  explicit RNNCellImpl(const RNNCellOptions& o)
      : ember::nn::RNNCellImpl(
            o.input_size(), o.hidden_size(),
            {.bias = o.bias(), .nonlinearity = torch::detail::enum_spelling(o.nonlinearity())}),
        options(o) {}
  EMBER_TORCH_LAYER_NAME(RNNCell)
  /// "4, 6, bias=false, nonlinearity=kReLU", as LibTorch prints it.
  std::string extra_repr() const override;
  RNNCellOptions options;
};
TORCH_MODULE(RNNCell);

class LSTMCellImpl : public ember::nn::LSTMCellImpl {
 public:
  LSTMCellImpl(int64_t input_size, int64_t hidden_size)
      : LSTMCellImpl(LSTMCellOptions(input_size, hidden_size)) {}
  explicit LSTMCellImpl(const LSTMCellOptions& o)
      : ember::nn::LSTMCellImpl(o.input_size(), o.hidden_size(), {.bias = o.bias()}),
        options(o) {}
  EMBER_TORCH_LAYER_NAME(LSTMCell)
  std::string extra_repr() const override;
  LSTMCellOptions options;
};
TORCH_MODULE(LSTMCell);

class GRUCellImpl : public ember::nn::GRUCellImpl {
 public:
  GRUCellImpl(int64_t input_size, int64_t hidden_size)
      : GRUCellImpl(GRUCellOptions(input_size, hidden_size)) {}
  explicit GRUCellImpl(const GRUCellOptions& o)
      : ember::nn::GRUCellImpl(o.input_size(), o.hidden_size(), {.bias = o.bias()}),
        options(o) {}
  EMBER_TORCH_LAYER_NAME(GRUCell)
  std::string extra_repr() const override;
  GRUCellOptions options;
};
TORCH_MODULE(GRUCell);

}  // namespace torch::nn
