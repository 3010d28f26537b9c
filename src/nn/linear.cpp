// Linear, Identity, Flatten, Unflatten: PyTorch's defaults and initialisation (Linear's
// reset_parameters: kaiming_uniform_(a = √5) on the weight, then U(±1/√fan_in) on the bias).
#include "ember/nn/layers/linear.h"

#include <cmath>
#include <sstream>

#include "ember/creation.h"
#include "ember/nn/functional.h"
#include "ember/nn/init.h"

namespace ember::nn {

LinearImpl::LinearImpl(int64_t in_features, int64_t out_features, LinearOptions options)
    : in_features(in_features), out_features(out_features) {
  EMBER_CHECK(in_features >= 0 && out_features >= 0, "Linear",
              "in_features and out_features must be non-negative, got ", in_features, " and ",
              out_features);
  weight = register_parameter("weight", empty({out_features, in_features}));
  bias = register_parameter("bias", options.bias ? empty({out_features}) : Tensor());
  reset_parameters();
}

void LinearImpl::reset_parameters() {
  init::kaiming_uniform_(weight, {.a = std::sqrt(5.0)});
  if (bias.defined()) {
    const int64_t fan_in = init::calculate_fan_in_and_fan_out(weight).first;
    const double bound = fan_in > 0 ? 1 / std::sqrt(double(fan_in)) : 0;
    init::uniform_(bias, -bound, bound);
  }
}

Tensor LinearImpl::forward(const Tensor& input) {
  return functional::linear(input, weight, bias);
}

std::string LinearImpl::extra_repr() const {
  std::ostringstream os;
  os << "in_features=" << in_features << ", out_features=" << out_features
     << ", bias=" << (bias.defined() ? "True" : "False");
  return os.str();
}

std::string FlattenImpl::extra_repr() const {
  std::ostringstream os;
  os << "start_dim=" << options.start_dim << ", end_dim=" << options.end_dim;
  return os.str();
}

std::string UnflattenImpl::extra_repr() const {
  std::ostringstream os;
  os << "dim=" << dim << ", unflattened_size=(";
  for (size_t i = 0; i < sizes.size(); ++i) os << (i ? ", " : "") << sizes[i];
  os << (sizes.size() == 1 ? ",)" : ")");
  return os.str();
}

}  // namespace ember::nn
