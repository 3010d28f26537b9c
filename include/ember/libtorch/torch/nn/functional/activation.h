// torch::nn::functional's activations with LibTorch's options (namespace F =
// torch::nn::functional):
//   F::relu(x)   F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.2))
//   F::softmax(x, F::SoftmaxFuncOptions(1))   F::gelu(x, F::GELUFuncOptions().approximate("tanh"))
// With inplace(true) the result is written into the input, which is returned (autograd refuses
// this where the backward needs the original input, as it does for any in-place change).
#pragma once

#include "ember/math.h"
#include "ember/nn/functional/layers.h"
#include "ember/reduce.h"
#include "ember/tensor.h"
#include "torch/nn/options/activation.h"

namespace torch::nn::functional {

namespace detail {
/// `result`, or — for an in-place call — the input overwritten with it.
inline ember::Tensor maybe_in_place(ember::Tensor input, bool inplace,
                                    const ember::Tensor& result) {
  if (!inplace) return result;
  input.copy_(result);
  return input;
}
}  // namespace detail

inline ember::Tensor relu(ember::Tensor input, const ReLUFuncOptions& options = {}) {
  return options.inplace() ? input.relu_() : ember::relu(input);
}
inline ember::Tensor relu6(ember::Tensor input, const ReLU6FuncOptions& options = {}) {
  return detail::maybe_in_place(input, options.inplace(), ember::relu6(input));
}
inline ember::Tensor leaky_relu(ember::Tensor input, const LeakyReLUFuncOptions& options = {}) {
  return detail::maybe_in_place(input, options.inplace(),
                                ember::leaky_relu(input, options.negative_slope()));
}
inline ember::Tensor elu(ember::Tensor input, const ELUFuncOptions& options = {}) {
  return detail::maybe_in_place(input, options.inplace(), ember::elu(input, options.alpha()));
}
inline ember::Tensor selu(ember::Tensor input, const SELUFuncOptions& options = {}) {
  return detail::maybe_in_place(input, options.inplace(), ember::selu(input));
}
inline ember::Tensor hardtanh(ember::Tensor input, const HardtanhFuncOptions& options = {}) {
  return detail::maybe_in_place(input, options.inplace(),
                                ember::hardtanh(input, options.min_val(), options.max_val()));
}
inline ember::Tensor gelu(const ember::Tensor& input, const GELUFuncOptions& options = {}) {
  return ember::gelu(input, {.approximate = options.approximate()});
}
inline ember::Tensor silu(const ember::Tensor& input) { return ember::silu(input); }
inline ember::Tensor mish(const ember::Tensor& input) { return ember::mish(input); }
inline ember::Tensor softplus(const ember::Tensor& input, const SoftplusFuncOptions& options = {}) {
  return ember::softplus(input, options.beta(), options.threshold());
}
inline ember::Tensor softmax(const ember::Tensor& input, const SoftmaxFuncOptions& options) {
  return ember::softmax(input, options.dim(), options.dtype());
}
inline ember::Tensor log_softmax(const ember::Tensor& input, const LogSoftmaxFuncOptions& options) {
  return ember::log_softmax(input, options.dim(), options.dtype());
}

inline ember::Tensor prelu(const ember::Tensor& input, const ember::Tensor& weight) {
  return ember::nn::functional::prelu(input, weight);
}

}  // namespace torch::nn::functional
