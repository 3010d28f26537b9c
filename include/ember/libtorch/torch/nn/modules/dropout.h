// torch::nn::Dropout and Dropout2d over ember's, from a probability or LibTorch's options:
//   torch::nn::Dropout(0.5)   torch::nn::Dropout(torch::nn::DropoutOptions().p(0.2).inplace(true))
#pragma once

#include <string>

#include "ember/nn/layers/dropout_embedding.h"
#include "torch/nn/functional/dropout.h"
#include "torch/nn/modules/utils.h"
#include "torch/nn/options/dropout.h"

namespace torch::nn {

namespace detail {
/// "p=0.5, inplace=false".
std::string dropout_description(const DropoutOptions& options);
}  // namespace detail

// Dropout zeroes elements, Dropout2d whole channels; both only in training.
#define EMBER_TORCH_DROPOUT(Name, function)                                                  \
  class Name##Impl : public ember::nn::Name##Impl {                                          \
   public:                                                                                   \
    explicit Name##Impl(double p) : Name##Impl(Name##Options().p(p)) {}                      \
    explicit Name##Impl(const Name##Options& options_ = {})                                  \
        : ember::nn::Name##Impl(options_.p(), {.inplace = options_.inplace()}),              \
          options(options_) {}                                                               \
    ember::Tensor forward(ember::Tensor input) {                                             \
      return functional::function(std::move(input), functional::DropoutFuncOptions()         \
                                                        .p(options.p())                      \
                                                        .training(is_training())             \
                                                        .inplace(options.inplace()));        \
    }                                                                                        \
    EMBER_TORCH_LAYER_NAME(Name)                                                             \
    std::string extra_repr() const override { return detail::dropout_description(options); } \
    Name##Options options;                                                                   \
  };                                                                                         \
  TORCH_MODULE(Name)
EMBER_TORCH_DROPOUT(Dropout, dropout);
EMBER_TORCH_DROPOUT(Dropout2d, dropout2d);
#undef EMBER_TORCH_DROPOUT

}  // namespace torch::nn
