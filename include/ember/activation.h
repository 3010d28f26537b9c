// Pointwise activations as free functions (torch.* / torch.nn.functional spellings): the
// sigmoid, relu and gelu families, silu, mish, softplus, the hard variants.
#pragma once

#include <optional>
#include <string>

#include "ember/tensor.h"

namespace ember {

Tensor sigmoid(const Tensor& t);
Tensor logit(const Tensor& t, std::optional<double> eps = {});
Tensor relu(const Tensor& t);
Tensor relu6(const Tensor& t);
Tensor leaky_relu(const Tensor& t, double negative_slope = 0.01);
Tensor elu(const Tensor& t, double alpha = 1.0, double scale = 1.0, double input_scale = 1.0);
Tensor selu(const Tensor& t);
struct GeluOptions {
  std::string approximate = "none";  // or "tanh"
};
Tensor gelu(const Tensor& t, GeluOptions options = {});
Tensor silu(const Tensor& t);
Tensor hardshrink(const Tensor& t, double lambd = 0.5);
Tensor mish(const Tensor& t);
Tensor softplus(const Tensor& t, double beta = 1.0, double threshold = 20.0);
Tensor hardtanh(const Tensor& t, double min_val = -1.0, double max_val = 1.0);
Tensor hardsigmoid(const Tensor& t);
Tensor hardswish(const Tensor& t);

}  // namespace ember
