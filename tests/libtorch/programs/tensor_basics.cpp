// LibTorch's tensor spellings: TensorOptions as a builder, factories with options, dtypes,
// TORCH_CHECK, ATen's positional losses and pools with torch::Reduction, seeds, IntArrayRef's
// slice, constant_pad_nd.
#include <torch/torch.h>

#include <cstdio>
#include <iostream>

int main() {
  torch::manual_seed(7);
  auto options = torch::TensorOptions().dtype(torch::kFloat64).requires_grad(true);
  torch::Tensor w = torch::randn({3, 4}, options);
  std::printf("w: dtype float64 %d, requires_grad %d, sum %.6f\n",
              w.dtype() == torch::kFloat64, w.requires_grad(), w.sum().item<double>());

  auto ints = torch::arange(0, 12, torch::TensorOptions(torch::kInt64)).view({3, 4});
  std::printf("ints: %lld %lld\n", static_cast<long long>(ints.sum().item<int64_t>()),
              static_cast<long long>(ints.max().item<int64_t>()));

  at::Tensor x = torch::rand({2, 1, 6, 6});
  auto pooled = torch::max_pool2d(x, /*kernel_size=*/2, /*stride=*/2);
  auto averaged = torch::avg_pool2d(x, {3, 3});
  std::printf("pools: %lld %lld %.6f %.6f\n", static_cast<long long>(pooled.size(2)),
              static_cast<long long>(averaged.size(3)), pooled.sum().item<float>(),
              averaged.sum().item<float>());

  auto logits = torch::randn({5, 3});
  auto target = torch::tensor({0, 2, 1, 1, 0}, torch::kLong);
  auto nll_sum = torch::nll_loss(torch::log_softmax(logits, 1), target, {}, torch::Reduction::Sum);
  auto nll_mean = torch::nll_loss(torch::log_softmax(logits, /*dim=*/1), target);
  auto smooth = torch::smooth_l1_loss(logits, torch::zeros_like(logits));
  auto mse = torch::mse_loss(logits, torch::ones_like(logits), torch::Reduction::None);
  std::printf("losses: %.6f %.6f %.6f %.6f\n", nll_sum.item<float>(), nll_mean.item<float>(),
              smooth.item<float>(), mse.sum().item<float>());

  try {
    TORCH_CHECK(logits.dim() == 3, "expected 3 dims, got ", logits.dim());
  } catch (const c10::Error& e) {
    std::string message = e.what();
    std::printf("TORCH_CHECK threw: %s\n", message.substr(0, message.find('\n')).c_str());
  }
  auto shaped = torch::zeros({2, 3, 4, 5});
  auto sizes = shaped.sizes();
  std::cout << "sizes " << sizes << ", slice(1) " << sizes.slice(1) << ", slice(1, 2) "
            << sizes.slice(1, 2) << std::endl;
  auto padded = torch::constant_pad_nd(torch::ones({2, 2, 3}), {1, 2, 0, 1}, 0.5);
  std::cout << "constant_pad_nd " << padded.sizes() << " sum " << padded.sum().item<float>()
            << std::endl;
  torch::Device device(torch::kCPU);
  if (torch::cuda::is_available()) device = torch::Device(torch::kCUDA);
  std::cout << "device: " << device << std::endl;
  return 0;
}
