// LibTorch's options for the recurrent layers and cells:
//   torch::nn::LSTMOptions(10, 20).num_layers(2).batch_first(true).bidirectional(true)
//   torch::nn::RNNOptions(10, 20).nonlinearity(torch::kReLU)
#pragma once

#include <cstdint>
#include <variant>

#include "torch/arg.h"
#include "torch/enum.h"

namespace torch::nn {

/// The configuration every recurrent layer has (LibTorch's RNN, LSTM and GRU options).
#define EMBER_TORCH_RECURRENT_OPTIONS(Options)                                                  \
  Options(int64_t input_size, int64_t hidden_size)                                              \
      : input_size_(input_size), hidden_size_(hidden_size) {}                                   \
  TORCH_ARG(int64_t, input_size);                                                               \
  TORCH_ARG(int64_t, hidden_size);                                                              \
  TORCH_ARG(int64_t, num_layers) = 1;                                                           \
  TORCH_ARG(bool, bias) = true;                                                                 \
  TORCH_ARG(bool, batch_first) = false;                                                         \
  TORCH_ARG(double, dropout) = 0.0;                                                             \
  TORCH_ARG(bool, bidirectional) = false

struct RNNOptions {
  using nonlinearity_t = std::variant<enumtype::kTanh, enumtype::kReLU>;
  EMBER_TORCH_RECURRENT_OPTIONS(RNNOptions);
  TORCH_ARG(nonlinearity_t, nonlinearity) = torch::kTanh;
};

struct LSTMOptions {
  EMBER_TORCH_RECURRENT_OPTIONS(LSTMOptions);
  TORCH_ARG(int64_t, proj_size) = 0;
};

struct GRUOptions {
  EMBER_TORCH_RECURRENT_OPTIONS(GRUOptions);
};

#undef EMBER_TORCH_RECURRENT_OPTIONS

struct RNNCellOptions {
  using nonlinearity_t = std::variant<enumtype::kTanh, enumtype::kReLU>;
  RNNCellOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  TORCH_ARG(int64_t, input_size);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(bool, bias) = true;
  TORCH_ARG(nonlinearity_t, nonlinearity) = torch::kTanh;
};

struct LSTMCellOptions {
  LSTMCellOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  TORCH_ARG(int64_t, input_size);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(bool, bias) = true;
};

struct GRUCellOptions {
  GRUCellOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  TORCH_ARG(int64_t, input_size);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(bool, bias) = true;
};

}  // namespace torch::nn
