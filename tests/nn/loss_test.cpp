// The loss modules against PyTorch 1.13 (golden/nn_losses.json, written by gen_nn_losses.py):
// built with the generator's options, criterion(inputs...) gives PyTorch's loss, the gradients
// of sum(loss * grad_out) for the predictions, the state_dict keys (weights are buffers) and
// the repr.
#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/nn.h>

#include <nlohmann/json.hpp>

#include "test_support.h"

namespace {

using namespace ember;
using json = nlohmann::ordered_json;

const json& golden() {
  static const json data = test::load_golden<json>("nn_losses.json");
  return data;
}

using test::expect_golden_close;
using test::golden_tensor;

template <class T>
T opt(const json& o, const char* key, T fallback) {
  return o.contains(key) ? o[key].get<T>() : fallback;
}
Tensor opt_tensor(const json& o, const char* key) {
  return o.contains(key) ? golden_tensor(o[key]) : Tensor();
}

// Builds the case's criterion from its class name and options and applies it to the inputs.
struct Built {
  std::shared_ptr<nn::Module> module;
  std::function<Tensor(const std::vector<Tensor>&)> call;
};

template <class Holder>
Built wrap(Holder h) {
  return {h.ptr(), [h](const std::vector<Tensor>& in) {
            if constexpr (requires { h->forward(in[0], in[1], in[2]); })
              return Tensor(h(in[0], in[1], in[2]));
            else
              return Tensor(h(in[0], in[1]));
          }};
}

Built make(const std::string& cls, const json& o) {
  const std::string red = opt<std::string>(o, "reduction", "mean");
  if (cls == "CrossEntropyLoss")
    return wrap(nn::CrossEntropyLoss({.weight = opt_tensor(o, "weight"),
                                      .ignore_index = opt<int64_t>(o, "ignore_index", -100),
                                      .reduction = red,
                                      .label_smoothing = opt(o, "label_smoothing", 0.0)}));
  if (cls == "NLLLoss")
    return wrap(nn::NLLLoss({.weight = opt_tensor(o, "weight"),
                             .ignore_index = opt<int64_t>(o, "ignore_index", -100),
                             .reduction = red}));
  if (cls == "MSELoss") return wrap(nn::MSELoss({.reduction = red}));
  if (cls == "L1Loss") return wrap(nn::L1Loss({.reduction = red}));
  if (cls == "SmoothL1Loss")
    return wrap(nn::SmoothL1Loss({.reduction = red, .beta = opt(o, "beta", 1.0)}));
  if (cls == "HuberLoss")
    return wrap(nn::HuberLoss({.reduction = red, .delta = opt(o, "delta", 1.0)}));
  if (cls == "BCELoss")
    return wrap(nn::BCELoss({.weight = opt_tensor(o, "weight"), .reduction = red}));
  if (cls == "BCEWithLogitsLoss")
    return wrap(nn::BCEWithLogitsLoss({.weight = opt_tensor(o, "weight"), .reduction = red,
                                       .pos_weight = opt_tensor(o, "pos_weight")}));
  if (cls == "KLDivLoss")
    return wrap(nn::KLDivLoss({.reduction = red, .log_target = opt(o, "log_target", false)}));
  if (cls == "CosineEmbeddingLoss")
    return wrap(nn::CosineEmbeddingLoss({.margin = opt(o, "margin", 0.0), .reduction = red}));
  if (cls == "MarginRankingLoss")
    return wrap(nn::MarginRankingLoss({.margin = opt(o, "margin", 0.0), .reduction = red}));
  if (cls == "TripletMarginLoss")
    return wrap(nn::TripletMarginLoss({.margin = opt(o, "margin", 1.0), .p = opt(o, "p", 2.0),
                                       .eps = opt(o, "eps", 1e-6), .swap = opt(o, "swap", false),
                                       .reduction = red}));
  throw std::runtime_error("no loss " + cls);
}

TEST(Losses, MatchPyTorch) {
  for (const json& c : golden()["cases"]) {
    const std::string name = c["name"];
    SCOPED_TRACE(name);
    const std::string repr = c["repr"];
    Built crit = make(repr.substr(0, repr.find('(')), c["options"]);
    std::vector<Tensor> inputs;
    for (const json& x : c["inputs"]) inputs.push_back(golden_tensor(x));
    const size_t n_pred = c["grads"].size();
    for (size_t i = 0; i < n_pred; ++i) inputs[i].requires_grad_();
    const Tensor out = crit.call(inputs);
    expect_golden_close(out, c["out"], "loss");
    (out * golden_tensor(c["grad_out"])).sum().backward();
    for (size_t i = 0; i < n_pred; ++i)
      expect_golden_close(inputs[i].grad(), c["grads"][i], "grad of input " + std::to_string(i));
    EXPECT_EQ(crit.module->state_dict().keys(), c["state_dict_keys"].get<std::vector<std::string>>());
    EXPECT_EQ(crit.module->repr(), repr);
  }
}

TEST(Losses, ApiSpellingsAndErrors) {
  nn::CrossEntropyLoss criterion;
  const Tensor output = randn({8, 10}, {.requires_grad = true});
  const Tensor target = randint(0, 10, {8});
  Tensor loss = criterion(output, target);
  EXPECT_TRUE(allclose(loss, nn::functional::cross_entropy(output, target)));
  loss.backward();
  EXPECT_EQ(output.grad().sizes(), output.sizes());
  EXPECT_THROW(nn::MSELoss({.reduction = "avg"}), Error);
  EXPECT_THROW(nn::KLDivLoss({.reduction = "batch"}), Error);
  EXPECT_NO_THROW(nn::KLDivLoss({.reduction = "batchmean"}));
  EXPECT_THROW(nn::CrossEntropyLoss({.label_smoothing = 1.5}), Error);
  // Weights are buffers: module.to(dtype) converts them and the loss follows.
  nn::CrossEntropyLoss weighted({.weight = ones({10})});
  weighted->to(kFloat64);
  EXPECT_EQ(weighted->options.weight.dtype(), kFloat64);
  EXPECT_EQ(weighted->named_buffers()[0].first, "weight");
  EXPECT_NEAR(weighted(output.detach().to(kFloat64), target).item<double>(),
              loss.item<double>(), 1e-5);
}

}  // namespace
