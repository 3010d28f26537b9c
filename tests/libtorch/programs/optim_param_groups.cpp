// LibTorch's parameter groups and schedulers: groups with their own options, learning rates
// changed through param_groups() (set_lr, a static_cast to the options type) and by StepLR and
// a program's own LRScheduler, add_param_group, state(), step(closure), zero_grad, and a
// program's own optimizer on the Optimizer base.
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <tuple>
#include <vector>

namespace {

torch::Tensor loss_of(torch::nn::Linear& model, const torch::Tensor& x, const torch::Tensor& y) {
  return torch::mse_loss(model(x), y);
}

void step_once(torch::optim::Optimizer& optimizer, torch::nn::Linear& model, const torch::Tensor& x,
               const torch::Tensor& y) {
  optimizer.zero_grad();
  loss_of(model, x, y).backward();
  optimizer.step();
}

float sum_of(const std::vector<torch::Tensor>& params) {
  float total = 0;
  for (const auto& p : params) total += p.sum().item<float>();
  return total;
}

// Halves every learning rate on each step after the first (a program's own scheduler).
class HalvingLR : public torch::optim::LRScheduler {
 public:
  explicit HalvingLR(torch::optim::Optimizer& optimizer) : LRScheduler(optimizer) {}

 private:
  std::vector<double> get_lrs() override {
    std::vector<double> lrs = get_current_lrs();
    if (step_count_ > 0)
      for (double& lr : lrs) lr *= 0.5;
    return lrs;
  }
};

// A program's own optimizer: sign descent with a step counter in its state.
struct SignSGDOptions : public torch::optim::OptimizerCloneableOptions<SignSGDOptions> {
  explicit SignSGDOptions(double lr) : lr_(lr) {}
  double lr() const { return lr_; }
  double get_lr() const override { return lr_; }
  void set_lr(const double lr) override { lr_ = lr; }

 private:
  double lr_;
};

class SignSGD : public torch::optim::Optimizer {
 public:
  SignSGD(std::vector<torch::Tensor> params, SignSGDOptions options)
      : Optimizer({torch::optim::OptimizerParamGroup(std::move(params))},
                  std::make_unique<SignSGDOptions>(options)) {}
  torch::Tensor step(LossClosure closure = nullptr) override {
    torch::NoGradGuard no_grad;
    torch::Tensor loss;
    if (closure) {
      torch::AutoGradMode enable(true);
      loss = closure();
    }
    for (auto& group : param_groups_) {
      const double lr = static_cast<SignSGDOptions&>(group.options()).lr();
      for (auto& p : group.params()) {
        if (!p.grad().defined()) continue;
        p.sub_(p.grad().sign() * lr);
      }
      groups_stepped_ += 1;
    }
    return loss;
  }
  int64_t groups_stepped_ = 0;
};

}  // namespace

int main() {
  torch::manual_seed(0);
  auto x = torch::randn({16, 4});
  auto y = torch::randn({16, 3});

  // Two groups: the weight with the defaults, the bias with its own options.
  torch::manual_seed(1);
  torch::nn::Linear model(4, 3);
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<torch::Tensor>{model->weight});
  groups.emplace_back(std::vector<torch::Tensor>{model->bias},
                      std::make_unique<torch::optim::SGDOptions>(0.5));
  torch::optim::SGD sgd(groups, torch::optim::SGDOptions(0.1).momentum(0.9));
  for (int i = 0; i < 3; ++i) step_once(sgd, model, x, y);
  for (auto& group : sgd.param_groups()) {
    auto& options = static_cast<torch::optim::SGDOptions&>(group.options());
    std::printf("group: %zu params, lr %g momentum %g\n", group.params().size(), options.lr(),
                options.momentum());
  }
  std::printf("two groups: weight %.6f bias %.6f\n", model->weight.sum().item<float>(),
              model->bias.sum().item<float>());

  // The learning rate changed through the groups takes effect in the next step.
  for (auto& group : sgd.param_groups()) group.options().set_lr(group.options().get_lr() * 0.1);
  static_cast<torch::optim::SGDOptions&>(sgd.param_groups()[0].options()).momentum(0.0);
  for (int i = 0; i < 2; ++i) step_once(sgd, model, x, y);
  std::printf("after set_lr: lr %g %g, weight %.6f bias %.6f\n",
              sgd.param_groups()[0].options().get_lr(), sgd.param_groups()[1].options().get_lr(),
              model->weight.sum().item<float>(), model->bias.sum().item<float>());

  // Adam: change lr and betas by casting the options; add a second model's parameters later.
  torch::manual_seed(2);
  torch::nn::Linear first(4, 3), second(4, 3);
  torch::optim::Adam adam(first->parameters(), torch::optim::AdamOptions(1e-2));
  for (int i = 0; i < 3; ++i) step_once(adam, first, x, y);
  for (auto& group : adam.param_groups()) {
    auto& options = static_cast<torch::optim::AdamOptions&>(group.options());
    options.lr(options.lr() * 2).betas(std::make_tuple(0.8, 0.99));
  }
  adam.add_param_group(torch::optim::OptimizerParamGroup(
      second->parameters(),
      std::make_unique<torch::optim::AdamOptions>(torch::optim::AdamOptions(5e-2).amsgrad(true))));
  for (int i = 0; i < 3; ++i) {
    adam.zero_grad();
    (loss_of(first, x, y) + loss_of(second, x, y)).backward();
    adam.step();
  }
  std::printf("adam groups %zu, size %zu: first %.6f second %.6f\n", adam.param_groups().size(),
              adam.size(), sum_of(first->parameters()), sum_of(second->parameters()));

  // state(): one entry per parameter that has stepped.
  int64_t steps = 0;
  float exp_avg = 0, exp_avg_sq = 0;
  int with_max = 0;
  for (auto& entry : adam.state()) {
    auto& state = static_cast<torch::optim::AdamParamState&>(*entry.second);
    steps += state.step();
    exp_avg += state.exp_avg().sum().item<float>();
    exp_avg_sq += state.exp_avg_sq().sum().item<float>();
    with_max += state.max_exp_avg_sq().defined();
  }
  std::printf("adam state: %zu entries, steps %lld, exp_avg %.6f exp_avg_sq %.8f, amsgrad %d\n",
              adam.state().size(), static_cast<long long>(steps), exp_avg, exp_avg_sq, with_max);

  // State objects held across steps stay current, and changes made through them (a step count,
  // a replaced tensor) reach the optimizer's next step.
  std::vector<torch::optim::AdamParamState*> held;
  for (auto& entry : adam.state())
    held.push_back(static_cast<torch::optim::AdamParamState*>(entry.second.get()));
  for (auto* state : held) {
    state->step(1);
    state->exp_avg(torch::zeros_like(state->exp_avg()));
  }
  adam.zero_grad();
  (loss_of(first, x, y) + loss_of(second, x, y)).backward();
  adam.step();
  int64_t held_steps = 0;
  float held_exp_avg = 0;
  for (auto* state : held) {
    held_steps += state->step();
    held_exp_avg += state->exp_avg().sum().item<float>();
  }
  std::printf("held state: steps %lld, exp_avg %.6f, first %.6f second %.6f\n",
              static_cast<long long>(held_steps), held_exp_avg, sum_of(first->parameters()),
              sum_of(second->parameters()));

  // SGD's momentum buffers, RMSprop's and Adagrad's state.
  int buffers = 0;
  for (auto& entry : sgd.state()) {
    auto& state = static_cast<torch::optim::SGDParamState&>(*entry.second);
    buffers += state.momentum_buffer().defined();
  }
  torch::optim::Adagrad adagrad(second->parameters(), torch::optim::AdagradOptions(0.1));
  std::printf("sgd momentum buffers %d, adagrad entries before a step %zu\n", buffers,
              adagrad.state().size());
  step_once(adagrad, second, x, y);
  step_once(adagrad, second, x, y);
  float sums = 0;
  int64_t adagrad_steps = 0;
  for (auto& entry : adagrad.state()) {
    auto& state = static_cast<torch::optim::AdagradParamState&>(*entry.second);
    sums += state.sum().sum().item<float>();
    adagrad_steps += state.step();
  }
  std::printf("adagrad state: sum %.6f steps %lld\n", sums, static_cast<long long>(adagrad_steps));
  torch::optim::RMSprop rmsprop(first->parameters(),
                                torch::optim::RMSpropOptions(0.01).momentum(0.9).centered(true));
  step_once(rmsprop, first, x, y);
  float square_avg = 0, grad_avg = 0, momentum = 0;
  for (auto& entry : rmsprop.state()) {
    auto& state = static_cast<torch::optim::RMSpropParamState&>(*entry.second);
    square_avg += state.square_avg().sum().item<float>();
    grad_avg += state.grad_avg().sum().item<float>();
    momentum += state.momentum_buffer().sum().item<float>();
  }
  std::printf("rmsprop state: square_avg %.8f grad_avg %.6f momentum %.6f\n", square_avg, grad_avg,
              momentum);

  // StepLR: LibTorch counts from 0 and decays on steps step_size, 2 * step_size, ...
  torch::manual_seed(3);
  torch::nn::Linear scheduled(4, 3);
  torch::optim::SGD decayed(scheduled->parameters(), torch::optim::SGDOptions(0.1));
  torch::optim::StepLR scheduler(decayed, /*step_size=*/3, /*gamma=*/0.5);
  for (int epoch = 0; epoch < 8; ++epoch) {
    step_once(decayed, scheduled, x, y);
    scheduler.step();
    std::printf("epoch %d: lr %g loss %.6f\n", epoch, decayed.param_groups()[0].options().get_lr(),
                loss_of(scheduled, x, y).item<float>());
  }
  HalvingLR halving(decayed);
  for (int i = 0; i < 3; ++i) {
    halving.step();
    std::printf("halving %d: lr %g\n", i, decayed.param_groups()[0].options().get_lr());
  }

  // step(closure) returns the closure's loss; zero_grad zeroes the gradients.
  auto closure = [&] {
    decayed.zero_grad();
    auto loss = loss_of(scheduled, x, y);
    loss.backward();
    return loss;
  };
  auto returned = decayed.step(closure);
  std::printf("closure loss %.6f\n", returned.item<float>());
  decayed.zero_grad();
  std::printf("after zero_grad: defined %d, sum %.6f\n", int(scheduled->weight.grad().defined()),
              scheduled->weight.grad().abs().sum().item<float>());

  // A program's own optimizer on the base.
  torch::manual_seed(4);
  torch::nn::Linear signed_model(4, 3);
  SignSGD sign(signed_model->parameters(), SignSGDOptions(0.01));
  for (int i = 0; i < 3; ++i) step_once(sign, signed_model, x, y);
  std::printf("sign sgd: %.6f, lr %g, groups stepped %lld\n", sum_of(signed_model->parameters()),
              sign.param_groups()[0].options().get_lr(),
              static_cast<long long>(sign.groups_stepped_));
  return 0;
}
