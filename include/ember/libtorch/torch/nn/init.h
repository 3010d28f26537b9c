// torch::nn::init with LibTorch's signatures: each initialiser takes the tensor by value (a
// handle on the same data), fills it in place without recording autograd history, and returns
// it; the nonlinearity and fan mode are torch::kReLU, torch::kFanOut, ...:
//   torch::nn::init::kaiming_normal_(conv->weight, /*a=*/0, torch::kFanOut, torch::kReLU);
//   torch::nn::init::xavier_uniform_(linear->weight);  torch::nn::init::constant_(b, 0.1);
// The draws are ember's, which are PyTorch's: the same seed gives LibTorch's numbers.
#pragma once

#include <cstdint>
#include <tuple>
#include <variant>

#include "ember/scalar.h"
#include "ember/tensor.h"
#include "torch/enum.h"

namespace torch::nn::init {

using NonlinearityType =
    std::variant<enumtype::kLinear, enumtype::kConv1D, enumtype::kConv2D, enumtype::kConv3D,
                 enumtype::kConvTranspose1D, enumtype::kConvTranspose2D, enumtype::kConvTranspose3D,
                 enumtype::kSigmoid, enumtype::kTanh, enumtype::kReLU, enumtype::kLeakyReLU>;
using FanModeType = std::variant<enumtype::kFanIn, enumtype::kFanOut>;

/// The recommended gain for a nonlinearity (param: leaky_relu's negative slope).
double calculate_gain(NonlinearityType nonlinearity, double param = 0.01);

ember::Tensor constant_(ember::Tensor tensor, ember::Scalar value);
/// The identity of a convolution: 3-D, 4-D or 5-D weights, ones at the kernel's centre.
ember::Tensor dirac_(ember::Tensor tensor);
ember::Tensor eye_(ember::Tensor matrix);
ember::Tensor normal_(ember::Tensor tensor, double mean = 0, double std = 1);
ember::Tensor ones_(ember::Tensor tensor);
ember::Tensor orthogonal_(ember::Tensor tensor, double gain = 1.0);
ember::Tensor uniform_(ember::Tensor tensor, double low = 0, double high = 1);
ember::Tensor kaiming_normal_(ember::Tensor tensor, double a = 0, FanModeType mode = torch::kFanIn,
                              NonlinearityType nonlinearity = torch::kLeakyReLU);
ember::Tensor kaiming_uniform_(ember::Tensor tensor, double a = 0, FanModeType mode = torch::kFanIn,
                               NonlinearityType nonlinearity = torch::kLeakyReLU);
ember::Tensor xavier_normal_(ember::Tensor tensor, double gain = 1.0);
ember::Tensor xavier_uniform_(ember::Tensor tensor, double gain = 1.0);
ember::Tensor zeros_(ember::Tensor tensor);
/// (fan_in, fan_out) of a weight: size(1) and size(0) times the receptive field.
std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const ember::Tensor& tensor);

}  // namespace torch::nn::init
