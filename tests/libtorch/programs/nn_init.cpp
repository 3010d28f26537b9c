// torch::nn::init with LibTorch's signatures: tensors passed by value and filled in place under
// no-grad, the nonlinearity and fan mode as torch::kReLU / torch::kFanOut, after manual_seed.
#include <torch/torch.h>

#include <cmath>
#include <cstdio>

namespace init = torch::nn::init;

static void show(const char* name, const torch::Tensor& t) {
  std::printf("%-34s sum %.5f  abs %.5f  std %.5f\n", name, t.sum().item<float>(),
              t.abs().sum().item<float>(), t.std().item<float>());
}

int main() {
  torch::manual_seed(4);
  torch::nn::Linear fc(64, 32);
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(8, 16, 3));

  std::printf("gain relu %.5f tanh %.5f leaky(0.2) %.5f linear %.5f sigmoid %.5f conv2d %.5f\n",
              init::calculate_gain(torch::kReLU), init::calculate_gain(torch::kTanh),
              init::calculate_gain(torch::kLeakyReLU, 0.2), init::calculate_gain(torch::kLinear),
              init::calculate_gain(torch::kSigmoid), init::calculate_gain(torch::kConv2D));
  auto [fan_in, fan_out] = init::_calculate_fan_in_and_fan_out(conv->weight);
  std::printf("conv fans %lld %lld\n", static_cast<long long>(fan_in),
              static_cast<long long>(fan_out));

  show("kaiming_uniform_ (default)", init::kaiming_uniform_(fc->weight));
  show("kaiming_uniform_(a=sqrt5)", init::kaiming_uniform_(fc->weight, std::sqrt(5.0)));
  show("kaiming_normal_(fan_out, relu)",
       init::kaiming_normal_(conv->weight, /*a=*/0, torch::kFanOut, torch::kReLU));
  show("kaiming_normal_(fan_in, leaky)",
       init::kaiming_normal_(conv->weight, 0.1, torch::kFanIn, torch::kLeakyReLU));
  show("xavier_uniform_", init::xavier_uniform_(fc->weight));
  show("xavier_normal_(gain 2)", init::xavier_normal_(fc->weight, 2.0));
  show("normal_(1, 0.5)", init::normal_(fc->bias, 1, 0.5));
  show("uniform_(-2, 2)", init::uniform_(fc->bias, -2, 2));
  show("constant_(0.25)", init::constant_(fc->bias, 0.25));
  show("ones_", init::ones_(conv->bias));
  show("zeros_", init::zeros_(conv->bias));
  show("eye_", init::eye_(torch::empty({3, 5})));
  show("dirac_", init::dirac_(torch::empty({4, 2, 3, 3})));
  show("orthogonal_", init::orthogonal_(torch::empty({6, 4})));
  auto q = init::orthogonal_(torch::empty({4, 6}), 0.5);
  show("orthogonal_(gain) q q^T", q.mm(q.t()));

  // The tensor is a handle: the layer's parameter changes, without autograd history.
  init::constant_(fc->weight, 0.5);
  std::printf("fc weight after constant_ %.5f, requires_grad %d, is leaf %d\n",
              fc->weight.sum().item<float>(), fc->weight.requires_grad(), fc->weight.is_leaf());
  auto out = fc(torch::ones({2, 64}));
  out.sum().backward();
  std::printf("backward through initialised weight: grad sum %.5f\n",
              fc->weight.grad().sum().item<float>());
  show("draw after inits", torch::randn({8}));
  return 0;
}
