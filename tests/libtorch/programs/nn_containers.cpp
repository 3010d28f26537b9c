// torch::nn's containers: Sequential (positional, named, push_back, indexing, at<T>, ptr,
// extend, forward<T>), Functional (a function, a function with bound arguments, a lambda),
// AnyModule (forward, forward<T>, get<T>, ptr, FORWARD_HAS_DEFAULT_ARGS), ModuleList and
// ModuleDict.
#include <torch/torch.h>

#include <cstdio>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace nn = torch::nn;

// A module with two inputs and a defaulted third, for AnyModule.
struct MixImpl : nn::Module {
  torch::Tensor forward(torch::Tensor a, torch::Tensor b, double weight = 0.5) {
    return a * weight + b * (1 - weight);
  }

 protected:
  FORWARD_HAS_DEFAULT_ARGS({2, nn::AnyValue(0.5)})
};
TORCH_MODULE(Mix);

// A module returning two tensors.
struct SplitImpl : nn::Module {
  std::tuple<torch::Tensor, torch::Tensor> forward(torch::Tensor x) {
    return std::make_tuple(x.relu(), (-x).relu());
  }
};
TORCH_MODULE(Split);

static void show(const char* name, const torch::Tensor& y) {
  std::printf("%-28s sum %.5f  abs %.5f\n", name, y.sum().item<float>(),
              y.abs().sum().item<float>());
}

int main() {
  torch::manual_seed(2);
  auto x = torch::randn({5, 4});

  // ── Sequential ────────────────────────────────────────────────────────
  nn::Sequential seq(nn::Linear(4, 6), nn::Functional(torch::relu),
                     nn::Linear(nn::LinearOptions(6, 3).bias(false)));
  show("Sequential", seq->forward(x));
  std::printf("size %zu, [0] is Linear %d, at<LinearImpl>(2).out_features %lld\n", seq->size(),
              std::dynamic_pointer_cast<nn::LinearImpl>(seq[0]) != nullptr,
              static_cast<long long>(seq->at<nn::LinearImpl>(2).options.out_features()));
  seq->push_back(nn::Tanh());
  seq->push_back("scale", nn::Functional([](torch::Tensor t) { return t * 3; }));
  seq->push_back(std::make_shared<nn::SigmoidImpl>());
  show("after push_back", seq->forward(x));
  std::printf("size %zu, children %zu\n", seq->size(), seq->children().size());
  auto first = seq->ptr<nn::LinearImpl>(0);
  std::printf("ptr<LinearImpl>(0) weight sum %.5f, ptr(1) null %d\n",
              first->weight.sum().item<float>(), seq->ptr(1) == nullptr);

  nn::Sequential named({{"conv", nn::Conv2d(nn::Conv2dOptions(1, 2, 3).padding(1))},
                        {"act", nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.1))},
                        {"pool", nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions(2))},
                        {"flat", nn::Flatten()}});
  auto img = torch::randn({3, 1, 6, 6});
  show("named Sequential", named->forward(img));
  std::printf("named children %zu, [1] is LeakyReLU %d\n", named->children().size(),
              std::dynamic_pointer_cast<nn::LeakyReLUImpl>(named[1]) != nullptr);
  nn::Sequential extended;
  extended->extend(*seq);
  std::printf("extended size %zu, empty %d\n", extended->size(), nn::Sequential()->is_empty());
  show("extended forward", extended->forward<torch::Tensor>(x));
  for (const auto& any : *named) std::printf("%s ", any.ptr()->is_training() ? "T" : "F");
  std::printf("\n");

  // ── Functional ────────────────────────────────────────────────────────
  show("Functional(relu)", nn::Functional(torch::relu)(x));
  show("Functional(leaky_relu, 0.2)", nn::Functional(torch::leaky_relu, 0.2)(x));
  show("Functional(lambda)", nn::Functional([](torch::Tensor t) { return t.pow(2); })(x));
  nn::Sequential with_bound(nn::Linear(4, 4), nn::Functional(torch::leaky_relu, 0.3));
  show("Sequential with bound fn", with_bound->forward(x));

  // ── AnyModule ─────────────────────────────────────────────────────────
  nn::AnyModule any(nn::Linear(4, 2));
  show("AnyModule forward", any.forward(x));
  show("AnyModule get<Linear>", any.get<nn::Linear>()->weight);
  std::printf("get<LinearImpl> in %lld, ptr is Module %d\n",
              static_cast<long long>(any.get<nn::LinearImpl>().options.in_features()),
              any.ptr() != nullptr);
  nn::AnyModule mix(Mix{});
  auto y = torch::randn({5, 4});
  show("Mix(a, b)", mix.forward(x, y));
  show("Mix(a, b, 0.9)", mix.forward(x, y, 0.9));
  nn::AnyModule split(std::make_shared<SplitImpl>());
  auto parts = split.forward<std::tuple<torch::Tensor, torch::Tensor>>(x);
  show("Split first", std::get<0>(parts));
  show("Split second", std::get<1>(parts));
  try {
    any.forward(x, y);
  } catch (const c10::Error&) {
    std::printf("forward with too many arguments threw\n");
  }
  try {
    any.forward(1.0);
  } catch (const c10::Error&) {
    std::printf("forward with a wrong argument type threw\n");
  }
  nn::AnyModule attention(nn::MultiheadAttention(4, 2));
  auto q = torch::randn({3, 2, 4});
  auto [out, weights] = attention.forward<std::tuple<torch::Tensor, torch::Tensor>>(q, q, q);
  show("AnyModule(MHA) out", out);
  show("AnyModule(MHA) weights", weights);

  // ── ModuleList and ModuleDict ─────────────────────────────────────────
  nn::ModuleList layers(nn::Linear(4, 4), nn::ReLU(), nn::Linear(4, 2));
  layers->push_back(nn::Softmax(1));
  auto h = x;
  for (const auto& module : *layers) {
    if (auto linear = std::dynamic_pointer_cast<nn::LinearImpl>(module))
      h = linear->forward(h);
    else if (auto relu = std::dynamic_pointer_cast<nn::ReLUImpl>(module))
      h = relu->forward(h);
    else
      h = std::dynamic_pointer_cast<nn::SoftmaxImpl>(module)->forward(h);
  }
  show("ModuleList loop", h);
  std::printf("ModuleList size %zu, at<LinearImpl>(2).out %lld, parameters %zu\n", layers->size(),
              static_cast<long long>(layers->at<nn::LinearImpl>(2).options.out_features()),
              layers->parameters().size());
  show("ModuleList ptr<LinearImpl>(0)", layers->ptr<nn::LinearImpl>(0)->forward(x));

  nn::ModuleDict heads(std::vector<std::pair<std::string, std::shared_ptr<nn::Module>>>{
      {"score", std::make_shared<nn::LinearImpl>(4, 1)},
      {"classes", std::make_shared<nn::LinearImpl>(4, 3)}});
  heads->update(std::vector<std::pair<std::string, std::shared_ptr<nn::Module>>>{
      {"gate", nn::Linear(4, 2).ptr()}});
  std::printf("ModuleDict size %zu, contains gate %d, keys:", heads->size(),
              heads->contains("gate"));
  for (const auto& key : heads->keys()) std::printf(" %s", key.c_str());
  std::printf("\n");
  show("ModuleDict at<LinearImpl>", heads->at<nn::LinearImpl>("classes").forward(x));
  show("ModuleDict [\"score\"]",
       std::dynamic_pointer_cast<nn::LinearImpl>(heads["score"])->forward(x));
  return 0;
}
