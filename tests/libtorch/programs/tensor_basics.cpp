// LibTorch's tensor spellings: TensorOptions as a builder, factories with options, dtypes,
// TORCH_CHECK, ATen's positional losses and pools with torch::Reduction, seeds, IntArrayRef's
// slice, constant_pad_nd, writing through `t[i] = ...`, max/min of two tensors, the in-place
// shape changes, dtypes and options printed as LibTorch prints them, TORCH_VERSION_* and
// at::globalContext()'s TF32 switch.
#include <torch/torch.h>

#include <cstdio>
#include <iostream>
#include <vector>

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
  // `t[i] = x` writes the row (a scalar from raw bytes, as a CIFAR reader does; a tensor).
  std::vector<char> bytes = {char(-56), 3, 17};
  auto targets = torch::empty(3, torch::kByte);
  for (int i = 0; i < 3; ++i) targets[i] = bytes[i];
  auto grid = torch::zeros({2, 3});
  grid[0] = 1.5;
  grid[1] = torch::arange(3);
  grid[1][2] = 7;
  std::cout << "assigned " << targets << "\n" << grid << std::endl;
  auto first = torch::tensor({1.0, 5.0, 3.0}), second = torch::tensor({4.0, 2.0, 3.0});
  std::cout << "max " << first.max(second) << " min " << first.min(second) << std::endl;
  std::cout << "norm " << torch::norm(first).item<float>() << " "
            << torch::norm(grid, 1, {1}, /*keepdim=*/true) << std::endl;
  std::cout << "torch::max/min " << torch::max(first).item<float>() << " "
            << std::get<1>(torch::min(grid, 1)) << torch::max(first, second) << std::endl;
  auto rows = torch::tensor({3, 1, 3, 1, 2, 2, 3, 1}, torch::kLong).view({4, 2});
  auto [unique_rows, inverse, counts] = torch::unique_dim(rows, 0, true, true, true);
  std::cout << "unique_dim " << unique_rows << inverse << counts << std::endl;
  auto image = torch::arange(12.0).view({1, 1, 3, 4});
  std::cout << "reflection_pad2d " << torch::reflection_pad2d(image, {1, 1, 2, 0})[0][0]
            << " replication_pad1d " << torch::replication_pad1d(image[0][0], {0, 2})
            << std::endl;
  auto leaf = torch::arange(6.0).view({2, 1, 3}).requires_grad_();
  auto moved = leaf * torch::tensor({1.0, 2.0, 3.0});
  moved.unsqueeze_(0);
  std::cout << "unsqueeze_ " << moved.sizes() << " " << moved.grad_fn()->name();
  moved.squeeze_();
  std::cout << ", squeeze_ " << moved.sizes() << " " << moved.grad_fn()->name();
  moved.t_();
  std::cout << ", t_ " << moved.sizes() << " " << moved.strides() << " " << moved.grad_fn()->name();
  moved.transpose_(0, 1).unsqueeze_(2).squeeze_(2);
  std::cout << ", transpose_ " << moved.sizes() << " " << moved.grad_fn()->name() << std::endl;
  (moved * moved).sum().backward();
  std::cout << "grad through the in-place shape changes " << leaf.grad() << std::endl;
  // A dtype prints as LibTorch's TypeMeta names it; options mark what the builder left unset.
  for (auto dtype : {torch::kFloat32, torch::kFloat64, torch::kFloat16, torch::kBFloat16,
                     torch::kInt64, torch::kInt32, torch::kInt16, torch::kInt8, torch::kUInt8,
                     torch::kBool}) {
    std::cout << torch::zeros({1}, dtype).dtype() << " " << c10::toString(dtype) << ", ";
  }
  std::cout << std::endl << torch::ones({2}, torch::kInt64).options() << std::endl;
  std::cout << torch::TensorOptions().dtype(torch::kInt64).requires_grad(false) << std::endl;
  std::cout << torch::TensorOptions(torch::kCPU).layout(torch::kStrided) << std::endl;
  at::globalContext().setAllowTF32CuBLAS(false);  // full float32 products, as ember computes them
  std::cout << "LibTorch " << TORCH_VERSION_MAJOR << "." << TORCH_VERSION_MINOR << ", pi "
            << std::setprecision(3) << 3.14159 << std::endl;
  torch::Device device(torch::kCPU);
  if (torch::cuda::is_available()) device = torch::Device(torch::kCUDA);
  std::cout << "device: " << device << std::endl;
  return 0;
}
