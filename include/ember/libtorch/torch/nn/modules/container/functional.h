// torch::nn::Functional: a function of one tensor as a module, to put in a Sequential:
//   torch::nn::Functional(torch::relu)
//   torch::nn::Functional(torch::leaky_relu, /*negative_slope=*/0.2)  (more arguments are bound
//                                                                      after the input)
//   torch::nn::Functional([](torch::Tensor x) { return x * 2; })
#pragma once

#include <functional>
#include <utility>

#include "ember/nn/module.h"
#include "ember/tensor.h"
#include "torch/nn/modules/utils.h"
#include "torch/nn/pimpl.h"

namespace torch::nn {

class FunctionalImpl : public ember::nn::Module {
 public:
  using Function = std::function<ember::Tensor(ember::Tensor)>;

  explicit FunctionalImpl(Function function) : function_(std::move(function)) {}
  template <class SomeFunction, class... Args>
  requires(sizeof...(Args) > 0) explicit FunctionalImpl(SomeFunction original_function,
                                                        Args&&... args)
      : function_(
            std::bind(original_function, std::placeholders::_1, std::forward<Args>(args)...)) {}

  ember::Tensor forward(ember::Tensor input) { return function_(std::move(input)); }
  ember::Tensor operator()(ember::Tensor input) { return forward(std::move(input)); }
  EMBER_TORCH_LAYER_NAME(Functional)
  /// For clone(): the same function.
  std::shared_ptr<FunctionalImpl> fresh_copy(const std::optional<ember::Device>&) const {
    return std::make_shared<FunctionalImpl>(function_);
  }

 private:
  Function function_;
};
TORCH_MODULE(Functional);

}  // namespace torch::nn
