// LibTorch's options for the activation layers and their functional forms:
//   torch::nn::LeakyReLUOptions().negative_slope(0.2)    F::softmax(x, F::SoftmaxFuncOptions(1))
// (the functional options are the layers' ones where LibTorch makes them so).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ember/dtype.h"
#include "torch/arg.h"

namespace torch::nn {

struct ELUOptions {
  TORCH_ARG(double, alpha) = 1.0;
  TORCH_ARG(bool, inplace) = false;
};

struct SELUOptions {
  /* implicit */ SELUOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT
  TORCH_ARG(bool, inplace);
};

struct PReLUOptions {
  TORCH_ARG(int64_t, num_parameters) = 1;
  TORCH_ARG(double, init) = 0.25;
};

struct GELUOptions {
  TORCH_ARG(std::string, approximate) = "none";  // or "tanh"
};

struct HardtanhOptions {
  TORCH_ARG(double, min_val) = -1.0;
  TORCH_ARG(double, max_val) = 1.0;
  TORCH_ARG(bool, inplace) = false;
};

struct LeakyReLUOptions {
  TORCH_ARG(double, negative_slope) = 1e-2;
  TORCH_ARG(bool, inplace) = false;
};

struct ReLUOptions {
  /* implicit */ ReLUOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT
  TORCH_ARG(bool, inplace);
};

struct ReLU6Options {
  /* implicit */ ReLU6Options(bool inplace = false) : inplace_(inplace) {}  // NOLINT
  TORCH_ARG(bool, inplace);
};

struct SoftplusOptions {
  TORCH_ARG(double, beta) = 1.0;
  TORCH_ARG(double, threshold) = 20.0;
};

// Softmax and LogSoftmax: the layer takes a dim; the function also an optional dtype.
#define EMBER_TORCH_SOFTMAX_OPTIONS(Name)                                     \
  struct Name##Options {                                                      \
    /* implicit */ Name##Options(int64_t dim) : dim_(dim) {} /* NOLINT */     \
    TORCH_ARG(int64_t, dim);                                                  \
  };                                                                          \
  namespace functional {                                                      \
  struct Name##FuncOptions {                                                  \
    /* implicit */ Name##FuncOptions(int64_t dim) : dim_(dim) {} /* NOLINT */ \
    TORCH_ARG(int64_t, dim);                                                  \
    TORCH_ARG(std::optional<ember::Dtype>, dtype) = std::nullopt;             \
  };                                                                          \
  }
EMBER_TORCH_SOFTMAX_OPTIONS(Softmax)
EMBER_TORCH_SOFTMAX_OPTIONS(LogSoftmax)
#undef EMBER_TORCH_SOFTMAX_OPTIONS

struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads), kdim_(embed_dim), vdim_(embed_dim) {}
  TORCH_ARG(int64_t, embed_dim);
  TORCH_ARG(int64_t, num_heads);
  TORCH_ARG(double, dropout) = 0.0;
  TORCH_ARG(bool, bias) = true;
  TORCH_ARG(bool, add_bias_kv) = false;    // not in ember: MultiheadAttentionImpl refuses true
  TORCH_ARG(bool, add_zero_attn) = false;  // likewise
  TORCH_ARG(int64_t, kdim);                // ember's keys and values have embed_dim features
  TORCH_ARG(int64_t, vdim);
};

namespace functional {
using ELUFuncOptions = ELUOptions;
using SELUFuncOptions = SELUOptions;
using GELUFuncOptions = GELUOptions;
using HardtanhFuncOptions = HardtanhOptions;
using LeakyReLUFuncOptions = LeakyReLUOptions;
using ReLUFuncOptions = ReLUOptions;
using ReLU6FuncOptions = ReLU6Options;
using SoftplusFuncOptions = SoftplusOptions;
}  // namespace functional

}  // namespace torch::nn
