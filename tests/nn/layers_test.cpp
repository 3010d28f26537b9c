// The layer modules against PyTorch 1.13 (golden/nn_layers.json, written by gen_nn_layers.py):
// with the generator's weights loaded through load_state_dict, each layer's output, the
// gradients of sum(out * grad_out) for the input and every parameter, the buffers after the call
// (BatchNorm running statistics, num_batches_tracked) and the repr equal PyTorch's.
#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/nn.h>

#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>

namespace {

using namespace ember;
using json = nlohmann::ordered_json;

const json& golden() {
  static const json data = [] {
    std::ifstream f(std::string(EMBER_GOLDEN_DIR) + "/nn_layers.json");
    return json::parse(f);
  }();
  return data;
}

Tensor build(const json& spec) {
  const std::vector<int64_t> shape = spec["shape"];
  const std::string dtype = spec["dtype"];
  if (dtype == "int64") return from_vector(spec["data"].get<std::vector<int64_t>>(), shape);
  return from_vector(spec["data"].get<std::vector<double>>(), shape).to(kFloat32);
}

void expect_close(const Tensor& got, const json& want, const std::string& what) {
  const Tensor w = build(want);
  ASSERT_EQ(got.sizes(), w.sizes()) << what;
  EXPECT_TRUE(allclose(got.to(kFloat64), w.to(kFloat64), 1e-5, 1e-6))
      << what << "\ngot " << got << "\nwant " << w;
}

// Each golden case's layer, built with the same options as the generator.
const std::map<std::string, std::function<std::shared_ptr<nn::Module>()>>& factories() {
  static const std::map<std::string, std::function<std::shared_ptr<nn::Module>()>> f = {
      {"linear", [] { return nn::Linear(4, 3).ptr(); }},
      {"linear_nobias", [] { return nn::Linear(4, 3, {.bias = false}).ptr(); }},
      {"layer_norm", [] { return nn::LayerNorm({6}).ptr(); }},
      {"group_norm", [] { return nn::GroupNorm(2, 4).ptr(); }},
      {"batch_norm1d_train", [] { return nn::BatchNorm1d(3).ptr(); }},
      {"batch_norm1d_cumulative", [] { return nn::BatchNorm1d(3, {.momentum = std::nullopt}).ptr(); }},
      {"batch_norm2d_eval", [] { return nn::BatchNorm2d(2).ptr(); }},
      {"batch_norm2d_no_stats",
       [] { return nn::BatchNorm2d(2, {.affine = false, .track_running_stats = false}).ptr(); }},
      {"embedding_padding", [] { return nn::Embedding(6, 3, {.padding_idx = 1}).ptr(); }},
      {"gelu_tanh", [] { return nn::GELU({.approximate = "tanh"}).ptr(); }},
      {"leaky_relu", [] { return nn::LeakyReLU({.negative_slope = 0.2}).ptr(); }},
      {"elu", [] { return nn::ELU({.alpha = 0.5}).ptr(); }},
      {"softplus", [] { return nn::Softplus({.beta = 2.0, .threshold = 1.0}).ptr(); }},
      {"softmax", [] { return nn::Softmax(1).ptr(); }},
      {"log_softmax", [] { return nn::LogSoftmax(0).ptr(); }},
      {"sequential",
       [] { return nn::Sequential(nn::Linear(4, 6), nn::ReLU(), nn::Linear(6, 2), nn::Tanh()).ptr(); }},
      {"flatten", [] { return nn::Flatten().ptr(); }},
      {"dropout_eval", [] { return nn::Dropout(0.3).ptr(); }},
  };
  return f;
}

// Calls the concrete layer's forward through its handle type.
Tensor call(const std::shared_ptr<nn::Module>& m, const Tensor& x) {
#define EMBER_TRY(T)                                         \
  if (auto p = std::dynamic_pointer_cast<nn::T##Impl>(m)) \
    return nn::detail::call_forward(*p, x);
  EMBER_TRY(Linear) EMBER_TRY(LayerNorm) EMBER_TRY(GroupNorm) EMBER_TRY(BatchNorm1d)
  EMBER_TRY(BatchNorm2d) EMBER_TRY(Embedding) EMBER_TRY(GELU) EMBER_TRY(LeakyReLU) EMBER_TRY(ELU)
  EMBER_TRY(Softplus) EMBER_TRY(Softmax) EMBER_TRY(LogSoftmax) EMBER_TRY(Sequential)
  EMBER_TRY(Flatten) EMBER_TRY(Dropout)
#undef EMBER_TRY
  throw std::runtime_error("no forward for " + m->name());
}

TEST(Layers, ForwardAndGradientsMatchPyTorch) {
  for (const json& c : golden()["cases"]) {
    const std::string name = c["name"];
    SCOPED_TRACE(name);
    auto layer = factories().at(name)();
    StateDict sd;
    for (const auto& [k, v] : c["state_dict"].items()) sd.insert(k, build(v));
    layer->load_state_dict(sd);
    layer->train(c["train"].get<bool>());
    Tensor x = build(c["input"]);
    for (int i = 1; i < c["calls"].get<int>(); ++i) call(layer, x);
    if (x.is_floating_point()) x.requires_grad_();
    const Tensor out = call(layer, x);
    expect_close(out, c["out"], "out");
    (out * build(c["grad_out"])).sum().backward();
    for (const auto& [pname, p] : layer->named_parameters())
      expect_close(p.grad(), c["grads"][pname], "grad of " + pname);
    if (c["grads"].contains("input")) expect_close(x.grad(), c["grads"]["input"], "grad of input");
    for (const auto& [bname, b] : layer->named_buffers()) {
      if (b.dtype() == kInt64)
        EXPECT_EQ(json(b.flatten().tolist<int64_t>()), c["buffers_after"][bname]["data"]) << bname;
      else
        expect_close(b, c["buffers_after"][bname], bname);
    }
    EXPECT_EQ(layer->repr(), c["repr"].get<std::string>());
  }
}

TEST(Layers, ReprMatchesPyTorch) {
  const json& r = golden()["reprs"];
  EXPECT_EQ(nn::Sequential(nn::Mish(), nn::SiLU(), nn::Hardswish(), nn::ReLU6(), nn::Sigmoid())->repr(),
            r["mish_silu_hardswish"].get<std::string>());
  EXPECT_EQ(nn::Sequential(nn::Dropout(0.1), nn::Dropout2d(0.25, {.inplace = true}))->repr(),
            r["dropouts"].get<std::string>());
  EXPECT_EQ(nn::Embedding(10, 3, {.padding_idx = -1, .max_norm = 1.0})->repr(),
            r["embedding_options"].get<std::string>());
  EXPECT_EQ(nn::Unflatten(1, {2, 3})->repr(), r["unflatten"].get<std::string>());
  EXPECT_EQ(nn::Identity()->repr(), r["identity"].get<std::string>());
  nn::ModuleList list;
  list->push_back(nn::Linear(2, 2));
  list->push_back(nn::LayerNorm({2, 3}, {.eps = 1e-6}));
  EXPECT_EQ(list->repr(), r["module_list"].get<std::string>());
  EXPECT_EQ(nn::BatchNorm1d(5, {.momentum = std::nullopt, .affine = false})->repr(),
            r["bn_momentum_none"].get<std::string>());
}

TEST(Layers, ContainersAndApiSpellings) {
  nn::Sequential seq(nn::Linear(64, 128), nn::ReLU(), nn::Linear(128, 10));
  EXPECT_EQ(seq(randn({2, 64})).sizes(), std::vector<int64_t>({2, 10}));
  EXPECT_EQ(seq[0]->name(), "Linear");
  EXPECT_EQ(seq[-1]->name(), "Linear");
  EXPECT_EQ(seq->at<nn::LinearImpl>(2)->out_features, 10);
  EXPECT_THROW(seq->at<nn::LinearImpl>(1), Error);
  EXPECT_THROW(seq[3], Error);
  seq->push_back(nn::Softmax(-1));
  EXPECT_TRUE(allclose(seq(randn({2, 64})).sum(-1), ones({2})));
  EXPECT_EQ(seq->named_parameters()[2].first, "2.weight");

  struct Net : nn::Module {
    nn::Sequential features = register_module("features", nn::Sequential(nn::Linear(4, 4), nn::ReLU()));
  };
  auto net = std::make_shared<Net>();
  EXPECT_EQ(net->state_dict().keys(), (std::vector<std::string>{"features.0.weight", "features.0.bias"}));

  nn::ModuleDict dict;
  dict->insert("enc", nn::Linear(2, 3).ptr());
  EXPECT_TRUE(dict->contains("enc"));
  EXPECT_EQ(dict->named_parameters()[0].first, "enc.weight");
  nn::ParameterList plist;
  plist->append(zeros({2}));
  EXPECT_TRUE((*plist)[0].requires_grad());
  nn::ParameterDict pdict;
  pdict->insert("scale", ones({3}));
  EXPECT_EQ(pdict->state_dict().keys(), std::vector<std::string>{"scale"});

  nn::BatchNorm1d(128); nn::BatchNorm2d(64); nn::LayerNorm({128}); nn::GroupNorm(8, 64);
  nn::ReLU(); nn::GELU(); nn::SiLU(); nn::Dropout(0.1); nn::Embedding(10000, 256);
  EXPECT_THROW(nn::BatchNorm2d(3)(randn({2, 3})), Error);
  EXPECT_THROW(nn::GroupNorm(3, 4), Error);
}

TEST(Layers, DropoutTrainsAndEvals) {
  nn::Dropout drop(0.5);
  const Tensor x = ones({1000});
  const Tensor y = drop(x);
  const double zeros_frac = (y == 0).to(kFloat64).mean().item<double>();
  EXPECT_NEAR(zeros_frac, 0.5, 0.06);
  drop->eval();
  EXPECT_TRUE(drop(x).equal(x));
}

TEST(Layers, EmbeddingInit) {
  manual_seed(0);
  nn::Embedding emb(200, 50, {.padding_idx = 3});
  EXPECT_EQ(emb->weight.select(0, 3).abs().sum().item<float>(), 0.0f);
  EXPECT_NEAR(emb->weight.std().item<double>(), 1.0, 0.03);
}

}  // namespace
