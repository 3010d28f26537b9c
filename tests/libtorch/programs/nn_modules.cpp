// Modules written the LibTorch way: Impl classes with TORCH_MODULE handles, registered layers
// built with option builders, ModuleHolder's constructors and accessors, then a few SGD steps
// with losses printed.
#include <torch/torch.h>

#include <cstdio>
#include <memory>

struct NetImpl : torch::nn::Module {
  NetImpl(int64_t in, int64_t hidden, int64_t out)
      : fc1(register_module("fc1", torch::nn::Linear(in, hidden))),
        fc2(register_module(
            "fc2", torch::nn::Linear(torch::nn::LinearOptions(hidden, out).bias(false)))) {}
  torch::Tensor forward(torch::Tensor x) { return fc2(torch::relu(fc1(x))); }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Net);

struct ConvNetImpl : torch::nn::Module {
  ConvNetImpl() {
    conv = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 4, 3).padding(1)));
    bn = register_module("bn", torch::nn::BatchNorm2d(torch::nn::BatchNorm2dOptions(4)));
    pool = register_module("pool", torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(2).stride(2)));
    drop = register_module("drop", torch::nn::Dropout(torch::nn::DropoutOptions(0.25)));
    head = register_module(
        "head", torch::nn::Sequential(torch::nn::Flatten(), torch::nn::Linear(4 * 4 * 4, 3)));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = pool(torch::relu(bn(conv(x))));
    return head->forward(drop(x));
  }
  torch::nn::Conv2d conv{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
  torch::nn::MaxPool2d pool{nullptr};
  torch::nn::Dropout drop{nullptr};
  torch::nn::Sequential head{nullptr};
};
TORCH_MODULE(ConvNet);

// A module whose constructor has a default, so its handle default-constructs one.
struct ScaleImpl : torch::nn::Module {
  explicit ScaleImpl(double factor = 2.0) : factor(factor) {}
  torch::Tensor forward(torch::Tensor x) { return x * factor; }
  double factor;
};
TORCH_MODULE(Scale);

static double parameter_sum(torch::nn::Module& module) {
  double sum = 0;
  for (const auto& p : module.parameters()) sum += p.sum().item<double>();
  return sum;
}

int main() {
  torch::manual_seed(1);

  // ── ModuleHolder's constructors and accessors ─────────────────────────
  Scale doubled;
  Scale tripled(3.0);
  auto ones = torch::ones({2});
  std::printf("Scale default %.1f, Scale(3) %.1f\n", doubled(ones).sum().item<float>(),
              tripled->forward(ones).sum().item<float>());
  Net empty{nullptr};
  std::printf("empty: is_empty %d, bool %d\n", empty.is_empty(), static_cast<bool>(empty));
  try {
    empty.ptr();
  } catch (const c10::Error&) {
    std::printf("ptr() on an empty handle threw c10::Error\n");
  }
  Net net(4, 8, 3);
  empty = net;
  std::printf("after assignment: is_empty %d, same module %d\n", empty.is_empty(),
              empty.get() == net.get());
  Net shared(std::make_shared<NetImpl>(4, 8, 3));
  std::shared_ptr<NetImpl> impl = shared.ptr();
  std::printf("from shared_ptr: same %d, fc2 bias defined %d, params %zu\n",
              impl.get() == shared.get(), (*shared).fc2->bias.defined(),
              shared->parameters().size());
  torch::nn::Linear alias = net->fc1;
  std::printf("alias shares weights %d, in_features %lld\n",
              alias->weight.data_ptr() == net->fc1->weight.data_ptr(),
              static_cast<long long>(alias->options.in_features()));
  std::shared_ptr<torch::nn::Module> base = net.ptr();
  std::printf("as Module: %zu parameters, training %d\n", base->parameters().size(),
              base->is_training());

  // ── training an MLP ───────────────────────────────────────────────────
  auto x = torch::randn({16, 4});
  auto target = torch::randint(0, 3, {16}, torch::kLong);
  torch::nn::CrossEntropyLoss criterion;
  torch::optim::SGD sgd(net->parameters(), /*lr=*/0.1);
  std::printf("MLP parameter sum before %.5f\n", parameter_sum(*net));
  for (int step = 0; step < 5; ++step) {
    sgd.zero_grad();
    auto loss = criterion(net(x), target);
    loss.backward();
    sgd.step();
    std::printf("MLP step %d loss %.5f\n", step, loss.item<float>());
  }
  std::printf("MLP parameter sum after %.5f, fc1 grad norm %.5f\n", parameter_sum(*net),
              net->fc1->weight.grad().norm().item<float>());

  // ── training a small CNN (BatchNorm, Dropout, a Sequential head) ─────
  ConvNet cnn;
  auto images = torch::randn({8, 1, 8, 8});
  auto labels = torch::randint(0, 3, {8}, torch::kLong);
  torch::optim::SGD cnn_sgd(cnn->parameters(), 0.05);
  for (int step = 0; step < 4; ++step) {
    cnn_sgd.zero_grad();
    auto loss = torch::nn::functional::cross_entropy(cnn(images), labels);
    loss.backward();
    cnn_sgd.step();
    std::printf("CNN step %d loss %.5f\n", step, loss.item<float>());
  }
  cnn->eval();
  std::printf("CNN eval: training %d, output sum %.5f, running_var %.5f\n", cnn->is_training(),
              cnn(images).sum().item<float>(), cnn->bn->running_var.sum().item<float>());
  cnn->train();
  std::printf("CNN train again: dropout training %d\n", cnn->drop->is_training());
  return 0;
}
