// torch::nn::init with LibTorch's signatures over ember's initialisers: the tensor by value,
// filled without autograd history and returned; enums for the nonlinearity and fan mode.
#include <algorithm>

#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/nn/init.h"
#include "torch/nn/init.h"

namespace torch::nn::init {

namespace E = ember::nn::init;
using ember::Tensor;

double calculate_gain(NonlinearityType nonlinearity, double param) {
  return E::calculate_gain(torch::detail::enum_spelling(nonlinearity), param);
}

Tensor constant_(Tensor tensor, ember::Scalar value) {
  ember::NoGradGuard no_grad;
  E::constant_(tensor, value.to<double>());
  return tensor;
}

Tensor dirac_(Tensor tensor) {
  ember::NoGradGuard no_grad;
  const int64_t dims = tensor.dim();
  EMBER_CHECK(dims >= 3 && dims <= 5, "dirac_", "Only tensors with 3, 4, or 5 dimensions are ",
              "supported, got ", dims);
  tensor.zero_();
  const int64_t channels = std::min(tensor.size(0), tensor.size(1));
  for (int64_t d = 0; d < channels; ++d) {
    Tensor centre = tensor.select(0, d).select(0, d);
    for (int64_t k = 2; k < dims; ++k) centre = centre.select(0, tensor.size(k) / 2);
    centre.fill_(1);
  }
  return tensor;
}

Tensor eye_(Tensor matrix) {
  ember::NoGradGuard no_grad;
  E::eye_(matrix);
  return matrix;
}

Tensor normal_(Tensor tensor, double mean, double std) {
  ember::NoGradGuard no_grad;
  E::normal_(tensor, mean, std);
  return tensor;
}

Tensor ones_(Tensor tensor) {
  ember::NoGradGuard no_grad;
  E::ones_(tensor);
  return tensor;
}

Tensor orthogonal_(Tensor tensor, double gain) {
  ember::NoGradGuard no_grad;
  E::orthogonal_(tensor, {.gain = gain});
  return tensor;
}

Tensor uniform_(Tensor tensor, double low, double high) {
  ember::NoGradGuard no_grad;
  E::uniform_(tensor, low, high);
  return tensor;
}

namespace {
E::KaimingOptions kaiming_options(double a, const FanModeType& mode,
                                  const NonlinearityType& nonlinearity) {
  return {.a = a,
          .mode = torch::detail::enum_spelling(mode),
          .nonlinearity = torch::detail::enum_spelling(nonlinearity)};
}
}  // namespace

Tensor kaiming_normal_(Tensor tensor, double a, FanModeType mode, NonlinearityType nonlinearity) {
  ember::NoGradGuard no_grad;
  E::kaiming_normal_(tensor, kaiming_options(a, mode, nonlinearity));
  return tensor;
}

Tensor kaiming_uniform_(Tensor tensor, double a, FanModeType mode, NonlinearityType nonlinearity) {
  ember::NoGradGuard no_grad;
  E::kaiming_uniform_(tensor, kaiming_options(a, mode, nonlinearity));
  return tensor;
}

Tensor xavier_normal_(Tensor tensor, double gain) {
  ember::NoGradGuard no_grad;
  E::xavier_normal_(tensor, {.gain = gain});
  return tensor;
}

Tensor xavier_uniform_(Tensor tensor, double gain) {
  ember::NoGradGuard no_grad;
  E::xavier_uniform_(tensor, {.gain = gain});
  return tensor;
}

Tensor zeros_(Tensor tensor) {
  ember::NoGradGuard no_grad;
  E::zeros_(tensor);
  return tensor;
}

std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor) {
  const auto [fan_in, fan_out] = E::calculate_fan_in_and_fan_out(tensor);
  return {fan_in, fan_out};
}

}  // namespace torch::nn::init
