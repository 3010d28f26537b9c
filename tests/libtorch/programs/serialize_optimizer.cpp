// torch::save / torch::load of optimizers with their models, for every optimizer: training
// resumed from the files continues with the saved state (momentum, moments, step counts) and
// with the loading optimizer's own options, as LibTorch 1.13 restores the state only (the
// learning rate halved before saving is not taken back, so the resumed run steps with the
// first one).
#include <torch/torch.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace {

using MakeOptimizer =
    std::function<std::unique_ptr<torch::optim::Optimizer>(std::vector<torch::Tensor>)>;

struct Data {
  torch::Tensor x, y;
};

void train(torch::optim::Optimizer& optimizer, torch::nn::Sequential& model, const Data& data,
           int steps) {
  for (int i = 0; i < steps; ++i) {
    optimizer.zero_grad();
    torch::mse_loss(model->forward(data.x), data.y).backward();
    optimizer.step();
  }
}

torch::nn::Sequential make_model() {
  torch::manual_seed(5);
  return torch::nn::Sequential(torch::nn::Linear(4, 6), torch::nn::Tanh(), torch::nn::Linear(6, 3));
}

float sum_of(torch::nn::Sequential& model) {
  float total = 0;
  for (const auto& p : model->parameters()) total += p.sum().item<float>();
  return total;
}

void resume(const std::string& name, const Data& data, const MakeOptimizer& make) {
  // Uninterrupted: 3 steps, the learning rate halved, 3 more.
  auto model = make_model();
  auto optimizer = make(model->parameters());
  train(*optimizer, model, data, 3);
  for (auto& group : optimizer->param_groups())
    group.options().set_lr(group.options().get_lr() / 2);
  torch::save(model, name + "_model.pt");
  torch::save(*optimizer, name + "_optimizer.pt");
  train(*optimizer, model, data, 3);

  // Resumed: a fresh model and optimizer (another initialisation, the first learning rate)
  // loaded from the files.
  torch::manual_seed(99);
  torch::nn::Sequential resumed(torch::nn::Linear(4, 6), torch::nn::Tanh(),
                                torch::nn::Linear(6, 3));
  auto resumed_optimizer = make(resumed->parameters());
  torch::load(resumed, name + "_model.pt");
  torch::load(*resumed_optimizer, name + "_optimizer.pt");
  const double lr = resumed_optimizer->param_groups()[0].options().get_lr();
  train(*resumed_optimizer, resumed, data, 3);
  std::printf("%-8s uninterrupted %.6f resumed %.6f, lr after load %g, state entries %zu\n",
              name.c_str(), sum_of(model), sum_of(resumed), lr, resumed_optimizer->state().size());
}

}  // namespace

int main() {
  torch::manual_seed(0);
  Data data{torch::randn({10, 4}), torch::randn({10, 3})};
  using Params = std::vector<torch::Tensor>;
  resume("sgd", data, [](Params p) {
    return std::make_unique<torch::optim::SGD>(
        p, torch::optim::SGDOptions(0.1).momentum(0.9).nesterov(true));
  });
  resume("adam", data, [](Params p) {
    return std::make_unique<torch::optim::Adam>(p, torch::optim::AdamOptions(1e-2).amsgrad(true));
  });
  resume("adamw", data, [](Params p) {
    return std::make_unique<torch::optim::AdamW>(p, torch::optim::AdamWOptions(1e-2));
  });
  resume("adagrad", data, [](Params p) {
    return std::make_unique<torch::optim::Adagrad>(p, torch::optim::AdagradOptions(0.1));
  });
  resume("rmsprop", data, [](Params p) {
    return std::make_unique<torch::optim::RMSprop>(
        p, torch::optim::RMSpropOptions(0.01).momentum(0.5).centered(true));
  });

  // Through a stream, with two groups.
  auto model = make_model();
  auto params = model->parameters();
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<torch::Tensor>(params.begin(), params.begin() + 2));
  groups.emplace_back(std::vector<torch::Tensor>(params.begin() + 2, params.end()),
                      std::make_unique<torch::optim::AdamOptions>(3e-2));
  torch::optim::Adam adam(groups, torch::optim::AdamOptions(1e-2));
  train(adam, model, data, 2);
  std::stringstream stream;
  torch::save(adam, stream);
  torch::optim::Adam adam2(groups, torch::optim::AdamOptions(1e-3));
  torch::load(adam2, stream);
  std::printf("two groups: lr %g %g\n", adam2.param_groups()[0].options().get_lr(),
              adam2.param_groups()[1].options().get_lr());
  return 0;
}
