// torch::save / torch::load of modules: a layer handle, a Sequential, a program's own module
// (std::shared_ptr) with a buffer and a BatchNorm's running statistics; to a file and through a
// stream; a file without the module's keys is refused and leaves the module as it was. (A file
// whose shapes differ is refused by ember and taken by LibTorch, which resizes the parameters:
// tests/libtorch/python_interop checks ember's message.)
#include <torch/torch.h>

#include <cstdio>
#include <memory>
#include <sstream>
#include <vector>

namespace {

float sum_of(const std::vector<torch::Tensor>& tensors) {
  float total = 0;
  for (const auto& t : tensors) total += t.sum().item<float>();
  return total;
}

struct Net : torch::nn::Module {
  Net() {
    fc1 = register_module("fc1", torch::nn::Linear(4, 8));
    norm = register_module("norm", torch::nn::BatchNorm1d(8));
    fc2 = register_module("fc2", torch::nn::Linear(8, 2));
    scale = register_buffer("scale", torch::ones({2}));
  }
  torch::Tensor forward(torch::Tensor x) {
    return fc2->forward(torch::relu(norm->forward(fc1->forward(x)))) * scale;
  }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  torch::nn::BatchNorm1d norm{nullptr};
  torch::Tensor scale;
};

}  // namespace

int main() {
  torch::manual_seed(0);
  auto x = torch::randn({6, 4});

  // A layer handle.
  torch::nn::Linear linear(4, 3);
  torch::save(linear, "linear.pt");
  torch::manual_seed(1);
  torch::nn::Linear linear2(4, 3);
  std::printf("linear before load: %.6f vs %.6f\n", sum_of(linear2->parameters()),
              sum_of(linear->parameters()));
  torch::load(linear2, "linear.pt");
  std::printf("linear after load: %.6f, outputs equal %d, requires_grad %d\n",
              sum_of(linear2->parameters()), int(torch::allclose(linear(x), linear2(x))),
              int(linear2->weight.requires_grad()));

  // A Sequential.
  torch::nn::Sequential seq(torch::nn::Linear(4, 5), torch::nn::ReLU(), torch::nn::Linear(5, 2));
  torch::save(seq, "seq.pt");
  torch::manual_seed(2);
  torch::nn::Sequential seq2(torch::nn::Linear(4, 5), torch::nn::ReLU(), torch::nn::Linear(5, 2));
  torch::load(seq2, "seq.pt");
  std::printf("sequential: %.6f %.6f, output %.6f %.6f\n", sum_of(seq->parameters()),
              sum_of(seq2->parameters()), seq->forward(x).sum().item<float>(),
              seq2->forward(x).sum().item<float>());

  // A program's module with buffers: running statistics change in training mode.
  auto net = std::make_shared<Net>();
  net->train();
  for (int i = 0; i < 3; ++i) net->forward(torch::randn({6, 4}));
  net->scale.fill_(2.0);
  torch::save(net, "net.pt");
  torch::manual_seed(3);
  auto net2 = std::make_shared<Net>();
  torch::load(net2, "net.pt");
  net->eval();
  net2->eval();
  std::printf("net: params %.6f %.6f, buffers %.6f %.6f, output %.6f %.6f\n",
              sum_of(net->parameters()), sum_of(net2->parameters()), sum_of(net->buffers()),
              sum_of(net2->buffers()), net->forward(x).sum().item<float>(),
              net2->forward(x).sum().item<float>());
  std::printf("running_mean %.6f running_var %.6f num_batches_tracked %lld scale %.1f\n",
              net2->norm->running_mean.sum().item<float>(),
              net2->norm->running_var.sum().item<float>(),
              static_cast<long long>(net2->norm->num_batches_tracked.item<int64_t>()),
              net2->scale.sum().item<float>());

  // Through a stream.
  std::stringstream stream;
  torch::save(net, stream);
  torch::manual_seed(4);
  auto net3 = std::make_shared<Net>();
  torch::load(net3, stream);
  net3->eval();
  std::printf("stream: params %.6f, output %.6f\n", sum_of(net3->parameters()),
              net3->forward(x).sum().item<float>());

  // A file for another module is refused, and the module keeps its values.
  auto other = std::make_shared<Net>();
  const float before = sum_of(other->parameters()) + sum_of(other->buffers());
  try {
    torch::load(other, "linear.pt");
    std::printf("loading another module's file succeeded\n");
  } catch (const c10::Error&) {
    std::printf("another module's file refused, module unchanged %d\n",
                int(before == sum_of(other->parameters()) + sum_of(other->buffers())));
  }
  return 0;
}
