// Modules written the LibTorch way: Impl classes with TORCH_MODULE handles, registered layers
// built with option builders, ModuleHolder's constructors and accessors, then a few SGD steps
// with losses printed; cloning, to() overrides, replace_module, unregister_module and
// set_requires_grad.
#include <torch/torch.h>

#include <cstdio>
#include <memory>
#include <string>

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
struct TORCH_API ScaleImpl : torch::nn::Module {  // LibTorch's visibility macro, as programs write it
  explicit ScaleImpl(double factor = 2.0) : factor(factor) {}
  torch::Tensor forward(torch::Tensor x) { return x * factor; }
  double factor;
};
TORCH_MODULE(Scale);

// A module that can clone itself: its state is registered in reset(), which clone() runs again.
struct TwoLayerImpl : torch::nn::Cloneable<TwoLayerImpl> {
  explicit TwoLayerImpl(int64_t width) : width(width) { reset(); }
  void reset() override {
    fc = register_module("fc", torch::nn::Linear(width, width));
    gain = register_parameter("gain", torch::ones({width}));
    steps = register_buffer("steps", torch::zeros({1}, torch::kLong));
  }
  torch::Tensor forward(torch::Tensor x) { return fc(x) * gain; }
  int64_t width;
  torch::nn::Linear fc{nullptr};
  torch::Tensor gain, steps;
};
TORCH_MODULE(TwoLayer);

// A module with state outside its registered tensors keeps it in step by overriding to().
struct ExtraStateImpl : torch::nn::Module {
  ExtraStateImpl() { fc = register_module("fc", torch::nn::Linear(2, 2)); }
  void to(torch::Dtype dtype, bool non_blocking = false) override {
    torch::nn::Module::to(dtype, non_blocking);
    table = table.to(dtype);
    std::printf("ExtraState::to(dtype) ran\n");
  }
  void to(torch::Device device, bool non_blocking = false) override {
    torch::nn::Module::to(device, non_blocking);
    table = table.to(device);
    std::printf("ExtraState::to(device) ran\n");
  }
  void to(torch::Device device, torch::Dtype dtype, bool non_blocking = false) override {
    torch::nn::Module::to(device, dtype, non_blocking);
    table = table.to(device, dtype);
    std::printf("ExtraState::to(device, dtype) ran\n");
  }
  torch::nn::Linear fc{nullptr};
  torch::Tensor table = torch::arange(4);
};
TORCH_MODULE(ExtraState);

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
  // ── clone, to() overrides, modules(false), as<T>() on a const module ─────
  TwoLayer original(3);
  {
    torch::NoGradGuard no_grad;
    original->gain.mul_(2);
    original->steps.add_(4);
  }
  auto copy = std::dynamic_pointer_cast<TwoLayerImpl>(original->clone());
  std::printf("clone: same weight object %d, equal values %d, gain sum %.1f, steps %lld\n",
              copy->fc->weight.is_same(original->fc->weight),
              copy->fc->weight.equal(original->fc->weight), copy->gain.sum().item<float>(),
              static_cast<long long>(copy->steps.item<int64_t>()));
  {
    torch::NoGradGuard no_grad;
    for (auto& p : copy->parameters()) p.zero_();
  }
  std::printf("after zeroing the clone: original %.5f, clone %.5f\n", parameter_sum(*original),
              parameter_sum(*copy));
  try {
    Net(1, 1, 1)->clone();
  } catch (const c10::Error& e) {
    std::string message = e.what();
    std::printf("Net clone: %s\n", message.substr(0, message.find('\n')).c_str());
  }
  auto holder = std::make_shared<torch::nn::Module>();
  auto extra = holder->register_module("extra", ExtraState());
  holder->to(torch::kDouble);
  holder->to(torch::Device(torch::kCPU));
  holder->to(torch::kCPU, torch::kFloat);
  std::printf("extra table %s, fc weight %s\n", c10::toString(extra->table.scalar_type()),
              c10::toString(extra->fc->weight.scalar_type()));
  auto cnn_for_names = ConvNet();
  for (const auto& item : cnn_for_names->named_modules("", /*include_self=*/false))
    std::printf("module %s\n", item.key().c_str());
  std::printf("modules with self %zu, without %zu\n", cnn_for_names->modules().size(),
              cnn_for_names->modules(false).size());
  const torch::nn::Module& as_const = *cnn_for_names->conv;
  if (const auto* conv = as_const.as<torch::nn::Conv2d>())
    std::printf("const as<Conv2d>: weight %lld dims\n", static_cast<long long>(conv->weight.dim()));
  std::printf("const as<Linear> is null %d\n", as_const.as<torch::nn::Linear>() == nullptr);
  // Built-in layers clone themselves, containers with their children.
  torch::nn::Sequential stack(torch::nn::Linear(3, 4), torch::nn::BatchNorm1d(4),
                              torch::nn::Functional(torch::tanh), torch::nn::Linear(4, 2));
  auto batch = torch::randn({5, 3});
  stack->forward(batch);  // moves the batch norm's running statistics
  stack->eval();
  auto stack_copy = std::dynamic_pointer_cast<torch::nn::SequentialImpl>(stack->clone());
  // (The modules' modes are cloned; LibTorch leaves the new Sequential itself in training mode,
  // ember gives it the original's, so only the children's are printed.)
  std::printf("Sequential clone: %zu modules, batch norm training %d, same output %d, shares a "
              "weight %d\n",
              stack_copy->size(), stack_copy->ptr(1)->is_training(),
              stack_copy->forward(batch).equal(stack->forward(batch)),
              stack_copy->ptr<torch::nn::LinearImpl>(0)->weight.is_same(
                  stack->ptr<torch::nn::LinearImpl>(0)->weight));
  torch::nn::LSTM lstm(torch::nn::LSTMOptions(3, 2).num_layers(2));
  auto lstm_copy = std::dynamic_pointer_cast<torch::nn::LSTMImpl>(lstm->clone());
  auto sequence = torch::randn({4, 1, 3});
  std::printf("LSTM clone: same output %d, %zu parameters\n",
              std::get<0>(lstm_copy->forward(sequence)).equal(std::get<0>(lstm->forward(sequence))),
              lstm_copy->parameters().size());
  // ── replace_module, unregister_module and freezing with set_requires_grad ─────
  Net swapped(4, 8, 3);
  swapped->fc2 = swapped->replace_module(
      "fc2", torch::nn::Linear(torch::nn::LinearOptions(8, 5).bias(false)));
  std::printf("replaced fc2: output %lld wide, %zu children\n",
              static_cast<long long>(swapped(torch::ones({1, 4})).size(1)),
              swapped->children().size());
  for (auto& p : swapped->fc1->parameters()) p.set_requires_grad(false);
  int64_t trainable = 0;
  for (const auto& p : swapped->parameters())
    if (p.requires_grad()) trainable += p.numel();
  std::printf("trainable after freezing fc1: %lld\n", static_cast<long long>(trainable));
  swapped->unregister_module("fc1");
  for (const auto& item : swapped->named_parameters()) std::printf("left %s\n", item.key().c_str());
  return 0;
}
