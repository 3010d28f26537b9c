// LibTorch's optimizers with their option builders: each trains the same small model a few
// steps through the Optimizer base (step(), zero_grad()), and the options read back.
#include <torch/torch.h>

#include <cstdio>
#include <memory>
#include <string>
#include <tuple>

struct Data {
  torch::Tensor x, y;
};

// Trains a fresh Linear(4, 3) (same seed each time, so every optimizer starts alike).
template <class MakeOptimizer>
void train(const std::string& name, const Data& data, MakeOptimizer make) {
  torch::manual_seed(1);
  torch::nn::Linear model(4, 3);
  auto optimizer = make(model->parameters());
  torch::optim::Optimizer& base = *optimizer;
  float loss_value = 0;
  for (int step = 0; step < 5; ++step) {
    base.zero_grad();
    auto loss = torch::mse_loss(model(data.x), data.y);
    loss.backward();
    base.step();
    loss_value = loss.item<float>();
  }
  std::printf("%-24s loss %.6f weight %.6f bias %.6f\n", name.c_str(), loss_value,
              model->weight.sum().item<float>(), model->bias.sum().item<float>());
}

int main() {
  torch::manual_seed(0);
  Data data{torch::randn({16, 4}), torch::randn({16, 3})};
  using torch::optim::Adagrad;
  using torch::optim::AdagradOptions;
  using torch::optim::Adam;
  using torch::optim::AdamOptions;
  using torch::optim::AdamW;
  using torch::optim::AdamWOptions;
  using torch::optim::RMSprop;
  using torch::optim::RMSpropOptions;
  using torch::optim::SGD;
  using torch::optim::SGDOptions;
  using Params = std::vector<torch::Tensor>;

  train("sgd lr", data, [](Params p) { return std::make_unique<SGD>(p, /*lr=*/0.1); });
  train("sgd momentum nesterov", data, [](Params p) {
    return std::make_unique<SGD>(p, SGDOptions(0.05).momentum(0.5).nesterov(true));
  });
  train("sgd dampening decay", data, [](Params p) {
    return std::make_unique<SGD>(p,
                                 SGDOptions(0.05).momentum(0.9).dampening(0.1).weight_decay(1e-2));
  });
  train("adam defaults", data, [](Params p) { return std::make_unique<Adam>(p); });
  train("adam builder", data, [](Params p) {
    return std::make_unique<Adam>(p, AdamOptions(2e-2)
                                         .betas(std::make_tuple(0.5, 0.999))
                                         .eps(1e-6)
                                         .weight_decay(1e-2)
                                         .amsgrad(true));
  });
  train("adamw", data,
        [](Params p) { return std::make_unique<AdamW>(p, AdamWOptions(1e-2).weight_decay(0.1)); });
  train("adamw amsgrad", data, [](Params p) {
    return std::make_unique<AdamW>(
        p, AdamWOptions(1e-2).betas(std::make_tuple(0.8, 0.99)).amsgrad(true));
  });
  train("adagrad", data, [](Params p) {
    return std::make_unique<Adagrad>(
        p, AdagradOptions(0.1).lr_decay(0.01).weight_decay(1e-3).initial_accumulator_value(0.1).eps(
               1e-8));
  });
  train("rmsprop defaults", data, [](Params p) { return std::make_unique<RMSprop>(p); });
  train("rmsprop centered", data, [](Params p) {
    return std::make_unique<RMSprop>(
        p, RMSpropOptions(0.01).alpha(0.9).momentum(0.5).centered(true).weight_decay(1e-3));
  });

  // Options read back, defaults, equality.
  auto adam = AdamOptions(2e-4).betas(std::make_tuple(0.5, 0.999));
  std::printf("adam options: lr %g betas %g %g eps %g weight_decay %g amsgrad %d\n", adam.lr(),
              std::get<0>(adam.betas()), std::get<1>(adam.betas()), adam.eps(), adam.weight_decay(),
              int(adam.amsgrad()));
  std::printf("adamw default weight_decay %g, adagrad default lr %g eps %g, rmsprop alpha %g\n",
              AdamWOptions().weight_decay(), AdagradOptions().lr(), AdagradOptions().eps(),
              RMSpropOptions().alpha());
  auto sgd_options = SGDOptions(0.1).momentum(0.9);
  std::printf("sgd options: lr %g momentum %g dampening %g nesterov %d, equal %d %d\n",
              sgd_options.lr(), sgd_options.momentum(), sgd_options.dampening(),
              int(sgd_options.nesterov()), int(sgd_options == SGDOptions(0.1).momentum(0.9)),
              int(sgd_options == SGDOptions(0.1)));
  sgd_options.lr() = 0.2;  // the non-const accessor gives the field itself
  std::printf("sgd lr after assignment %g, get_lr %g\n", sgd_options.lr(), sgd_options.get_lr());

  torch::nn::Linear model(4, 3);
  SGD sgd(model->parameters(), SGDOptions(0.01).momentum(0.5));
  auto& defaults = static_cast<SGDOptions&>(sgd.defaults());
  std::printf("defaults: lr %g momentum %g, groups %zu, parameters %zu, size %zu\n", defaults.lr(),
              defaults.momentum(), sgd.param_groups().size(), sgd.parameters().size(), sgd.size());

  // LBFGS: a closure evaluated several times per step, with and without the line search.
  using torch::optim::LBFGS;
  using torch::optim::LBFGSOptions;
  using torch::optim::LBFGSParamState;
  for (bool wolfe : {false, true}) {
    torch::manual_seed(3);
    torch::nn::Linear fit(3, 2);
    auto inputs = torch::randn({8, 3}), targets = torch::randn({8, 2});
    auto options = LBFGSOptions(0.8).max_iter(6).history_size(4);
    if (wolfe) options.line_search_fn("strong_wolfe");
    LBFGS lbfgs(fit->parameters(), options);
    for (int step = 0; step < 3; ++step) {
      auto loss = lbfgs.step([&] {
        lbfgs.zero_grad();
        auto l = torch::mse_loss(torch::tanh(fit(inputs)), targets);
        l.backward();
        return l;
      });
      std::printf("lbfgs%s step %d loss %.6f\n", wolfe ? "(strong_wolfe)" : "", step,
                  loss.item<double>());
    }
    for (auto& entry : lbfgs.state()) {  // one entry: LBFGS keeps its state on one parameter
      auto& st = static_cast<LBFGSParamState&>(*entry.second);
      std::printf("lbfgs state: %zu entry, func_evals %lld n_iter %lld history %zu t %.6f\n",
                  lbfgs.state().size(), static_cast<long long>(st.func_evals()),
                  static_cast<long long>(st.n_iter()), st.old_dirs().size(), st.t());
    }
    std::printf("lbfgs weight sum %.6f\n", fit->weight.sum().item<double>());
  }
  auto lbfgs_defaults = LBFGSOptions();
  std::printf(
      "lbfgs defaults: lr %g max_iter %lld max_eval set %d tolerance_grad %g history %lld\n",
      lbfgs_defaults.lr(), static_cast<long long>(lbfgs_defaults.max_iter()),
      int(lbfgs_defaults.max_eval().has_value()), lbfgs_defaults.tolerance_grad(),
      static_cast<long long>(lbfgs_defaults.history_size()));
  return 0;
}
