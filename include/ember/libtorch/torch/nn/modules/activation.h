// torch::nn's activation layers over ember's, from LibTorch's options:
//   torch::nn::ReLU()   torch::nn::ReLU(torch::nn::ReLUOptions().inplace(true))
//   torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2))
//   torch::nn::Softmax(/*dim=*/1)   torch::nn::GELU(torch::nn::GELUOptions().approximate("tanh"))
// (Hardswish, which LibTorch 1.13 lacks, is ember's own torch::nn::Hardswish.)
#pragma once

#include <cstdint>
#include <string>

#include "ember/nn/layers/activation.h"
#include "torch/nn/functional/activation.h"
#include "torch/nn/modules/utils.h"
#include "torch/nn/options/activation.h"

namespace torch::nn {

EMBER_TORCH_PLAIN_LAYER(SiLU);
EMBER_TORCH_PLAIN_LAYER(Mish);
EMBER_TORCH_PLAIN_LAYER(Sigmoid);
EMBER_TORCH_PLAIN_LAYER(Tanh);

namespace detail {
// LibTorch's descriptions of the activations with options ("negative_slope=0.2", ...).
std::string activation_description(const ReLUOptions& options);
std::string activation_description(const ReLU6Options& options);
std::string activation_description(const LeakyReLUOptions& options);
std::string activation_description(const ELUOptions& options);
std::string activation_description(const GELUOptions& options);
std::string activation_description(const SoftplusOptions& options);
}  // namespace detail

// An activation whose forward is F::function(input, options); ember's layer is built with the
// arguments `...` (written in terms of options_).
#define EMBER_TORCH_ACTIVATION(Name, function, ...)                                             \
  class Name##Impl : public ember::nn::Name##Impl {                                             \
   public:                                                                                      \
    explicit Name##Impl(const Name##Options& options_ = {})                                     \
        : ember::nn::Name##Impl(__VA_ARGS__), options(options_) {}                              \
    ember::Tensor forward(ember::Tensor input) {                                                \
      return functional::function(std::move(input), options);                                   \
    }                                                                                           \
    EMBER_TORCH_LAYER_NAME(Name)                                                                \
    std::string extra_repr() const override { return detail::activation_description(options); } \
    Name##Options options;                                                                      \
  };                                                                                            \
  TORCH_MODULE(Name)

EMBER_TORCH_ACTIVATION(ReLU, relu, );
EMBER_TORCH_ACTIVATION(ReLU6, relu6, );
EMBER_TORCH_ACTIVATION(LeakyReLU, leaky_relu,
                       {.negative_slope = options_.negative_slope(),
                        .inplace = options_.inplace()});
EMBER_TORCH_ACTIVATION(ELU, elu, {.alpha = options_.alpha(), .inplace = options_.inplace()});
EMBER_TORCH_ACTIVATION(GELU, gelu, {.approximate = options_.approximate()});
EMBER_TORCH_ACTIVATION(Softplus, softplus,
                       {.beta = options_.beta(), .threshold = options_.threshold()});
#undef EMBER_TORCH_ACTIVATION

class PReLUImpl : public ember::nn::PReLUImpl {
 public:
  explicit PReLUImpl(const PReLUOptions& options_ = {})
      : ember::nn::PReLUImpl(
            {.num_parameters = options_.num_parameters(), .init = options_.init()}),
        options(options_) {}
  EMBER_TORCH_LAYER_NAME(PReLU)
  std::string extra_repr() const override {
    return "num_parameters=" + std::to_string(options.num_parameters());
  }
  PReLUOptions options;
};
TORCH_MODULE(PReLU);

// Softmax and LogSoftmax: a dim, or the options that carry it.
#define EMBER_TORCH_SOFTMAX(Name)                                                              \
  class Name##Impl : public ember::nn::Name##Impl {                                            \
   public:                                                                                     \
    explicit Name##Impl(int64_t dim) : Name##Impl(Name##Options(dim)) {}                       \
    explicit Name##Impl(const Name##Options& options_)                                         \
        : ember::nn::Name##Impl(options_.dim()), options(options_) {}                          \
    EMBER_TORCH_LAYER_NAME(Name)                                                               \
    std::string extra_repr() const override { return "dim=" + std::to_string(options.dim()); } \
    Name##Options options;                                                                     \
  };                                                                                           \
  TORCH_MODULE(Name)
EMBER_TORCH_SOFTMAX(Softmax);
EMBER_TORCH_SOFTMAX(LogSoftmax);
#undef EMBER_TORCH_SOFTMAX

}  // namespace torch::nn
