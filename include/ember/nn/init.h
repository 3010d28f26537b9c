// torch.nn.init: in-place initialisers drawing from the global generator (or `gen`), with
// PyTorch's formulas and draw order, so after manual_seed the weights equal PyTorch's.
//   nn::init::kaiming_uniform_(w, {.a = std::sqrt(5.0)});  nn::init::zeros_(b);
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "ember/generator.h"
#include "ember/tensor.h"

namespace ember::nn::init {

/// The recommended gain for a nonlinearity: "linear", "conv1d/2d/3d", "conv_transpose*",
/// "sigmoid" -> 1, "tanh" -> 5/3, "relu" -> sqrt(2), "leaky_relu" -> sqrt(2 / (1 + slope^2))
/// (slope = param, default 0.01), "selu" -> 3/4.
double calculate_gain(const std::string& nonlinearity, std::optional<double> param = {});
/// (fan_in, fan_out): size(1) and size(0) times the receptive field (dims from 2 on).
std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor);

Tensor& uniform_(Tensor& tensor, double a = 0.0, double b = 1.0, Generator* gen = nullptr);
Tensor& normal_(Tensor& tensor, double mean = 0.0, double std = 1.0, Generator* gen = nullptr);
struct TruncNormalOptions {
  double mean = 0.0;
  double std = 1.0;
  double a = -2.0;  // bounds, in absolute units as PyTorch
  double b = 2.0;
  Generator* generator = nullptr;
};
/// Normal(mean, std) truncated to [a, b] by inverse-CDF sampling (PyTorch's method).
Tensor& trunc_normal_(Tensor& tensor, TruncNormalOptions options = {});
Tensor& constant_(Tensor& tensor, double value);
Tensor& ones_(Tensor& tensor);
Tensor& zeros_(Tensor& tensor);
/// The identity for a 2-D tensor.
Tensor& eye_(Tensor& tensor);

struct XavierOptions {
  double gain = 1.0;
  Generator* generator = nullptr;
};
/// U(-a, a), a = gain * sqrt(6 / (fan_in + fan_out)).
Tensor& xavier_uniform_(Tensor& tensor, XavierOptions options = {});
/// N(0, std), std = gain * sqrt(2 / (fan_in + fan_out)).
Tensor& xavier_normal_(Tensor& tensor, XavierOptions options = {});

struct KaimingOptions {
  double a = 0.0;                          // negative slope for leaky_relu
  std::string mode = "fan_in";             // or "fan_out"
  std::string nonlinearity = "leaky_relu";
  Generator* generator = nullptr;
};
/// U(-bound, bound), bound = gain * sqrt(3 / fan).
Tensor& kaiming_uniform_(Tensor& tensor, KaimingOptions options = {});
/// N(0, gain / sqrt(fan)).
Tensor& kaiming_normal_(Tensor& tensor, KaimingOptions options = {});

struct OrthogonalOptions {
  double gain = 1.0;
  Generator* generator = nullptr;
};
/// A (semi-)orthogonal matrix from the QR of a normal sample (sign-corrected), times gain; dims
/// after the first are flattened.
Tensor& orthogonal_(Tensor& tensor, OrthogonalOptions options = {});

}  // namespace ember::nn::init
