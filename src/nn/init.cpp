// torch.nn.init (1.13): every initialiser computes its bound in double exactly as the Python
// code does, then makes the same single uniform_/normal_ call, so the draws match PyTorch's.
#include "ember/nn/init.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/math.h"

namespace ember::nn::init {

double calculate_gain(const std::string& nonlinearity, std::optional<double> param) {
  static const char* const kLinear[] = {"linear", "conv1d", "conv2d", "conv3d",
                                        "conv_transpose1d", "conv_transpose2d",
                                        "conv_transpose3d", "sigmoid"};
  for (const char* n : kLinear)
    if (nonlinearity == n) return 1.0;
  if (nonlinearity == "tanh") return 5.0 / 3;
  if (nonlinearity == "relu") return std::sqrt(2.0);
  if (nonlinearity == "leaky_relu") {
    const double slope = param.value_or(0.01);
    return std::sqrt(2.0 / (1 + std::pow(slope, 2)));
  }
  if (nonlinearity == "selu") return 3.0 / 4;
  fail("calculate_gain", "Unsupported nonlinearity ", nonlinearity);
}

std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor) {
  EMBER_CHECK(tensor.dim() >= 2, "calculate_fan_in_and_fan_out",
              "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
  int64_t receptive_field = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d) receptive_field *= tensor.size(d);
  return {tensor.size(1) * receptive_field, tensor.size(0) * receptive_field};
}

namespace {

int64_t correct_fan(const Tensor& tensor, const std::string& mode) {
  EMBER_CHECK(mode == "fan_in" || mode == "fan_out", "kaiming_init", "Mode ", mode,
              " not supported, please use one of fan_in, fan_out");
  auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  return mode == "fan_in" ? fan_in : fan_out;
}

// Inverse error function in double: Giles' single-precision approximation refined by two
// Newton steps on erf, accurate to a few ulp.
double erfinv(double y) {
  if (y <= -1) return -INFINITY;
  if (y >= 1) return INFINITY;
  double w = -std::log((1.0 - y) * (1.0 + y)), x;
  if (w < 5.0) {
    w -= 2.5;
    double p = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                     -0.00125372503, -0.00417768164, 0.246640727, 1.50140941})
      p = c + p * w;
    x = p * y;
  } else {
    w = std::sqrt(w) - 3.0;
    double p = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                     -0.0076224613, 0.00943887047, 1.00167406, 2.83297682})
      p = c + p * w;
    x = p * y;
  }
  const double k = 2.0 / std::sqrt(std::numbers::pi);
  for (int i = 0; i < 2; ++i) x -= (std::erf(x) - y) / (k * std::exp(-x * x));
  return x;
}

}  // namespace

Tensor& uniform_(Tensor& tensor, double a, double b, Generator* gen) {
  NoGradGuard g;
  return ember::uniform_(tensor, a, b, gen);
}

Tensor& normal_(Tensor& tensor, double mean, double std, Generator* gen) {
  NoGradGuard g;
  return ember::normal_(tensor, mean, std, gen);
}

Tensor& trunc_normal_(Tensor& tensor, TruncNormalOptions o) {
  NoGradGuard g;
  auto norm_cdf = [](double x) { return (1.0 + std::erf(x / std::sqrt(2.0))) / 2.0; };
  const double l = norm_cdf((o.a - o.mean) / o.std), u = norm_cdf((o.b - o.mean) / o.std);
  // Uniform in [2l-1, 2u-1], then the inverse CDF of the normal: erfinv, scale, shift, clamp.
  Tensor draws = empty(tensor.sizes(), {.dtype = kFloat64});
  ember::uniform_(draws, 2 * l - 1, 2 * u - 1, o.generator);
  double* d = draws.data_ptr<double>();
  for (int64_t i = 0; i < draws.numel(); ++i)
    d[i] = std::clamp(erfinv(d[i]) * (o.std * std::sqrt(2.0)) + o.mean, o.a, o.b);
  tensor.copy_(draws);
  return tensor;
}

Tensor& constant_(Tensor& tensor, double value) {
  NoGradGuard g;
  tensor.fill_(value);
  return tensor;
}
Tensor& ones_(Tensor& tensor) { return constant_(tensor, 1.0); }
Tensor& zeros_(Tensor& tensor) {
  NoGradGuard g;
  tensor.zero_();
  return tensor;
}

Tensor& eye_(Tensor& tensor) {
  EMBER_CHECK(tensor.dim() == 2, "eye_", "Only tensors with 2 dimensions are supported, got ",
              tensor.dim());
  NoGradGuard g;
  tensor.copy_(eye(tensor.size(0), tensor.size(1), {.dtype = tensor.dtype()}));
  return tensor;
}

Tensor& xavier_uniform_(Tensor& tensor, XavierOptions o) {
  auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  const double std = o.gain * std::sqrt(2.0 / double(fan_in + fan_out));
  const double a = std::sqrt(3.0) * std;
  return init::uniform_(tensor, -a, a, o.generator);
}

Tensor& xavier_normal_(Tensor& tensor, XavierOptions o) {
  auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  const double std = o.gain * std::sqrt(2.0 / double(fan_in + fan_out));
  return init::normal_(tensor, 0.0, std, o.generator);
}

Tensor& kaiming_uniform_(Tensor& tensor, KaimingOptions o) {
  if (tensor.numel() == 0) return tensor;  // PyTorch warns and skips
  const int64_t fan = correct_fan(tensor, o.mode);
  const double gain = calculate_gain(o.nonlinearity, o.a);
  const double std = gain / std::sqrt(double(fan));
  const double bound = std::sqrt(3.0) * std;
  return init::uniform_(tensor, -bound, bound, o.generator);
}

Tensor& kaiming_normal_(Tensor& tensor, KaimingOptions o) {
  if (tensor.numel() == 0) return tensor;
  const int64_t fan = correct_fan(tensor, o.mode);
  const double gain = calculate_gain(o.nonlinearity, o.a);
  return init::normal_(tensor, 0.0, gain / std::sqrt(double(fan)), o.generator);
}

Tensor& orthogonal_(Tensor& tensor, OrthogonalOptions o) {
  EMBER_CHECK(tensor.dim() >= 2, "orthogonal_", "Only tensors with 2 or more dimensions are supported");
  if (tensor.numel() == 0) return tensor;
  NoGradGuard g;
  const int64_t rows = tensor.size(0), cols = tensor.numel() / rows;
  Tensor flat = empty({rows, cols}, {.dtype = tensor.dtype()});
  ember::normal_(flat, 0.0, 1.0, o.generator);  // the same draw as PyTorch's
  // Q of the QR of the tall orientation, with R's diagonal made positive (PyTorch multiplies Q
  // by sign(diag(R))): Gram–Schmidt, run twice for orthogonality, yields that Q directly.
  const bool wide = rows < cols;
  Tensor a = (wide ? flat.t() : flat).to(kFloat64).contiguous();  // (m, n), m >= n
  const int64_t m = a.size(0), n = a.size(1);
  std::vector<double> q(a.data_ptr<double>(), a.data_ptr<double>() + m * n);
  for (int64_t j = 0; j < n; ++j) {
    for (int pass = 0; pass < 2; ++pass)
      for (int64_t k = 0; k < j; ++k) {
        double dot = 0;
        for (int64_t i = 0; i < m; ++i) dot += q[i * n + k] * q[i * n + j];
        for (int64_t i = 0; i < m; ++i) q[i * n + j] -= dot * q[i * n + k];
      }
    double norm = 0;
    for (int64_t i = 0; i < m; ++i) norm += q[i * n + j] * q[i * n + j];
    norm = std::sqrt(norm);
    for (int64_t i = 0; i < m; ++i) q[i * n + j] /= norm;
  }
  Tensor qt = from_vector(q, std::vector<int64_t>{m, n});
  if (wide) qt = qt.t();
  tensor.copy_(qt.reshape(tensor.sizes()));
  tensor.mul_(o.gain);
  return tensor;
}

}  // namespace ember::nn::init
