// torch::nn's loss layers built with LibTorch's options (reductions as torch::kSum, ...,
// weights, margins), evaluated and differentiated; a logistic regression trained with
// BCEWithLogitsLoss and SGD.
#include <torch/torch.h>

#include <cstdio>

namespace nn = torch::nn;

static void show(const char* name, const torch::Tensor& loss) {
  std::printf("%-34s %.5f\n", name, loss.sum().item<float>());
}

int main() {
  torch::manual_seed(5);
  auto x = torch::randn({6, 4}, torch::requires_grad());
  auto target = torch::randn({6, 4});
  auto classes = torch::tensor({0, 3, 1, 1, 2, 3}, torch::kLong);
  auto bits = (target > 0).to(torch::kFloat);

  show("MSELoss", nn::MSELoss()(x, target));
  show("MSELoss(kSum)", nn::MSELoss(torch::kSum)(x, target));
  show("MSELoss(options kNone)",
       nn::MSELoss(nn::MSELossOptions().reduction(torch::kNone))(x, target));
  show("L1Loss", nn::L1Loss(nn::L1LossOptions(torch::kSum))(x, target));
  show("SmoothL1Loss(beta 0.5)", nn::SmoothL1Loss(nn::SmoothL1LossOptions().beta(0.5))(x, target));
  show("HuberLoss(delta 2)", nn::HuberLoss(nn::HuberLossOptions().delta(2))(x, target));
  show("CrossEntropyLoss", nn::CrossEntropyLoss()(x, classes));
  show("CrossEntropyLoss(weight, smooth)",
       nn::CrossEntropyLoss(nn::CrossEntropyLossOptions()
                                .weight(torch::tensor({1., 2., 0.5, 1.}))
                                .label_smoothing(0.2))(x, classes));
  show("CrossEntropyLoss(ignore 1, none)",
       nn::CrossEntropyLoss(nn::CrossEntropyLossOptions().ignore_index(1).reduction(torch::kNone))(
           x, classes));
  show("NLLLoss", nn::NLLLoss()(torch::log_softmax(x, 1), classes));
  show("NLLLoss(sum)",
       nn::NLLLoss(nn::NLLLossOptions().reduction(torch::kSum))(torch::log_softmax(x, 1), classes));
  show("BCELoss", nn::BCELoss()(torch::sigmoid(x), bits));
  show("BCELoss(weight)",
       nn::BCELoss(nn::BCELossOptions().weight(torch::rand({4})))(torch::sigmoid(x), bits));
  show("BCEWithLogitsLoss(pos_weight)",
       nn::BCEWithLogitsLoss(nn::BCEWithLogitsLossOptions().pos_weight(torch::full({4}, 3.0)))(
           x, bits));
  show("KLDivLoss(batchmean)", nn::KLDivLoss(nn::KLDivLossOptions(torch::kBatchMean))(
                                   torch::log_softmax(x, 1), torch::softmax(target, 1)));
  auto sign = torch::tensor({1., -1., 1., 1., -1., -1.});
  show("MarginRankingLoss(margin 0.5)", nn::MarginRankingLoss(nn::MarginRankingLossOptions().margin(
                                            0.5))(x.select(1, 0), target.select(1, 0), sign));
  show("CosineEmbeddingLoss(margin 0.1)",
       nn::CosineEmbeddingLoss(nn::CosineEmbeddingLossOptions().margin(0.1))(x, target, sign));
  show("TripletMarginLoss(p 1, swap)",
       nn::TripletMarginLoss(nn::TripletMarginLossOptions().p(1).swap(true).margin(0.5))(
           x, target, torch::randn({6, 4})));

  nn::CrossEntropyLoss weighted(nn::CrossEntropyLossOptions().weight(torch::ones({4})));
  std::printf("weight buffer: %zu buffers, reduction %s\n", weighted->buffers().size(),
              torch::enumtype::get_enum_name(weighted->options.reduction()).c_str());
  auto loss = nn::MSELoss()(x, target) + nn::CrossEntropyLoss()(x, classes);
  loss.backward();
  std::printf("grad of two losses: sum %.5f abs %.5f\n", x.grad().sum().item<float>(),
              x.grad().abs().sum().item<float>());

  // Logistic regression on a separable problem.
  auto features = torch::randn({32, 3});
  auto labels = (features.matmul(torch::tensor({1.5, -2.0, 0.5})) > 0).to(torch::kFloat);
  nn::Linear model(3, 1);
  nn::BCEWithLogitsLoss criterion;
  torch::optim::SGD sgd(model->parameters(), /*lr=*/0.5);
  for (int epoch = 0; epoch < 6; ++epoch) {
    sgd.zero_grad();
    auto l = criterion(model(features).squeeze(1), labels);
    l.backward();
    sgd.step();
    std::printf("epoch %d loss %.5f\n", epoch, l.item<float>());
  }
  return 0;
}
