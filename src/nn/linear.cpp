// Linear, Bilinear, Identity, Flatten, Unflatten: PyTorch's defaults and initialisation (Linear's
// reset_parameters: kaiming_uniform_(a = √5) on the weight, then U(±1/√fan_in) on the bias).
#include "ember/nn/layers/linear.h"

#include <cmath>
#include <sstream>

#include "ember/creation.h"
#include "ember/math.h"
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

BilinearImpl::BilinearImpl(int64_t in1_features, int64_t in2_features, int64_t out_features,
                           BilinearOptions options)
    : in1_features(in1_features), in2_features(in2_features), out_features(out_features) {
  EMBER_CHECK(in1_features >= 0 && in2_features >= 0 && out_features >= 0, "Bilinear",
              "feature counts must be non-negative, got ", in1_features, ", ", in2_features,
              " and ", out_features);
  weight = register_parameter("weight", empty({out_features, in1_features, in2_features}));
  bias = register_parameter("bias", options.bias ? empty({out_features}) : Tensor());
  reset_parameters();
}

void BilinearImpl::reset_parameters() {
  // PyTorch's Bilinear bounds both by 1/√in1 (weight.size(1)), not by a kaiming fan.
  const double bound = in1_features > 0 ? 1 / std::sqrt(double(in1_features)) : 0;
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}

Tensor BilinearImpl::forward(const Tensor& input1, const Tensor& input2) {
  EMBER_CHECK(input1.dim() >= 1 && input1.size(-1) == in1_features, "Bilinear",
              "input1 must end in ", in1_features, " features, got ", input1.sizes());
  EMBER_CHECK(input2.dim() >= 1 && input2.size(-1) == in2_features, "Bilinear",
              "input2 must end in ", in2_features, " features, got ", input2.sizes());
  EMBER_CHECK(IntArrayRef(input1.sizes().data(), input1.dim() - 1) ==
                  IntArrayRef(input2.sizes().data(), input2.dim() - 1),
              "Bilinear", "input1 and input2 must have the same batch dims, got ",
              input1.sizes(), " and ", input2.sizes());
  // (x1 W) as one matmul over all outputs: (B, in1) @ (in1, out * in2) -> (B, out, in2), then
  // the contraction with x2 — two dense passes instead of a per-output loop.
  const int64_t in1 = in1_features, in2 = in2_features, out = out_features;
  std::vector<int64_t> batch(input1.sizes().begin(), input1.sizes().end() - 1);
  const Tensor x1 = input1.reshape({-1, in1});
  const Tensor x2 = input2.reshape({-1, in2});
  const Tensor w = weight.permute({1, 0, 2}).reshape({in1, out * in2});
  Tensor y = (x1.matmul(w).view({-1, out, in2}) * x2.unsqueeze(1)).sum(-1);
  if (bias.defined()) y = y + bias;
  batch.push_back(out);
  return y.reshape(batch);
}

std::string BilinearImpl::extra_repr() const {
  std::ostringstream os;
  os << "in1_features=" << in1_features << ", in2_features=" << in2_features
     << ", out_features=" << out_features << ", bias=" << (bias.defined() ? "True" : "False");
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
