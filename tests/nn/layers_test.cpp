// The layer modules against PyTorch 1.13 (golden/nn_layers.json, written by gen_nn_layers.py):
// with the generator's weights loaded through load_state_dict, each layer's output, the
// gradients of sum(out * grad_out) for the input and every parameter, the buffers after the call
// (BatchNorm running statistics, num_batches_tracked) and the repr equal PyTorch's.
#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/nn.h>

#include <functional>
#include <map>
#include <nlohmann/json.hpp>

#include "test_support.h"

namespace {

using namespace ember;
using json = nlohmann::ordered_json;

const json& golden() {
  static const json data = test::load_golden<json>("nn_layers.json");
  return data;
}

using test::expect_golden_close;
using test::golden_tensor;

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
      {"conv1d", [] { return nn::Conv1d(2, 4, 3, {.stride = 2, .padding = 1}).ptr(); }},
      {"conv1d_same_reflect",
       [] {
         return nn::Conv1d(2, 4, 4, {.padding = "same", .dilation = 2, .groups = 2, .bias = false,
                                     .padding_mode = "reflect"}).ptr();
       }},
      {"conv1d_unbatched", [] { return nn::Conv1d(3, 2, 2).ptr(); }},
      {"conv2d", [] { return nn::Conv2d(3, 4, 3, {.padding = 1}).ptr(); }},
      {"conv2d_strided_groups",
       [] {
         return nn::Conv2d(4, 6, {3, 2}, {.stride = {2, 1}, .padding = {1, 0}, .dilation = {1, 2},
                                          .groups = 2}).ptr();
       }},
      {"conv2d_valid", [] { return nn::Conv2d(2, 3, 3, {.padding = "valid"}).ptr(); }},
      {"conv2d_same_even", [] { return nn::Conv2d(2, 2, {2, 4}, {.padding = "same"}).ptr(); }},
      {"conv2d_circular",
       [] { return nn::Conv2d(2, 3, 3, {.padding = {1, 2}, .padding_mode = "circular"}).ptr(); }},
      {"conv2d_replicate_same",
       [] { return nn::Conv2d(1, 2, 3, {.padding = "same", .padding_mode = "replicate"}).ptr(); }},
      {"conv_transpose2d",
       [] {
         return nn::ConvTranspose2d(4, 2, 3, {.stride = 2, .padding = 1, .output_padding = 1}).ptr();
       }},
      {"conv_transpose2d_groups",
       [] {
         return nn::ConvTranspose2d(4, 6, {2, 3}, {.stride = {1, 2}, .groups = 2, .bias = false,
                                                   .dilation = {2, 1}}).ptr();
       }},
      {"max_pool1d", [] { return nn::MaxPool1d(3, {.stride = 2, .padding = 1}).ptr(); }},
      {"max_pool2d", [] { return nn::MaxPool2d(2).ptr(); }},
      {"max_pool2d_ceil",
       [] {
         return nn::MaxPool2d({3, 2}, {.stride = {2, 1}, .padding = 1, .dilation = {1, 2},
                                       .ceil_mode = true}).ptr();
       }},
      {"avg_pool2d",
       [] { return nn::AvgPool2d(3, {.stride = 2, .padding = 1, .count_include_pad = false}).ptr(); }},
      {"avg_pool2d_divisor",
       [] { return nn::AvgPool2d({2, 3}, {.ceil_mode = true, .divisor_override = 4}).ptr(); }},
      {"adaptive_avg_pool2d", [] { return nn::AdaptiveAvgPool2d({2, 3}).ptr(); }},
      {"adaptive_avg_pool2d_1", [] { return nn::AdaptiveAvgPool2d(1).ptr(); }},
      {"upsample_nearest", [] { return nn::Upsample({.scale_factor = 2}).ptr(); }},
      {"upsample_bilinear_align",
       [] { return nn::Upsample({.size = {4, 5}, .mode = "bilinear", .align_corners = true}).ptr(); }},
      {"upsample_bilinear",
       [] { return nn::Upsample({.scale_factor = 1.5, .mode = "bilinear", .align_corners = false}).ptr(); }},
      {"upsample_linear",
       [] { return nn::Upsample({.scale_factor = 2, .mode = "linear", .align_corners = false}).ptr(); }},
      {"bilinear", [] { return nn::Bilinear(3, 2, 4).ptr(); }},
      {"bilinear_batched_nobias", [] { return nn::Bilinear(3, 2, 2, {.bias = false}).ptr(); }},
      {"instance_norm2d_affine_stats",
       [] { return nn::InstanceNorm2d(3, {.affine = true, .track_running_stats = true}).ptr(); }},
      {"instance_norm1d", [] { return nn::InstanceNorm1d(2).ptr(); }},
      {"instance_norm3d_eval",
       [] { return nn::InstanceNorm3d(2, {.affine = true, .track_running_stats = true}).ptr(); }},
      {"instance_norm1d_unbatched",
       [] { return nn::InstanceNorm1d(2, {.momentum = 0.5, .track_running_stats = true}).ptr(); }},
      {"prelu_channels", [] { return nn::PReLU({.num_parameters = 3, .init = 0.1}).ptr(); }},
      {"prelu", [] { return nn::PReLU().ptr(); }},
      {"conv3d", [] { return nn::Conv3d(2, 3, 3, {.padding = 1}).ptr(); }},
      {"conv3d_strided_groups",
       [] {
         return nn::Conv3d(4, 6, {3, 2, 2}, {.stride = {2, 1, 2}, .dilation = {1, 2, 1}, .groups = 2})
             .ptr();
       }},
      {"conv3d_same_reflect",
       [] {
         return nn::Conv3d(2, 2, {2, 3, 4}, {.padding = "same", .bias = false, .padding_mode = "reflect"})
             .ptr();
       }},
  };
  return f;
}

// Calls the concrete layer's forward through its handle type (x2: Bilinear's second input).
Tensor call(const std::shared_ptr<nn::Module>& m, const Tensor& x, const Tensor& x2 = {}) {
  if (auto p = std::dynamic_pointer_cast<nn::BilinearImpl>(m)) return nn::detail::call_forward(*p, x, x2);
#define EMBER_TRY(T)                                         \
  if (auto p = std::dynamic_pointer_cast<nn::T##Impl>(m)) \
    return nn::detail::call_forward(*p, x);
  EMBER_TRY(Linear) EMBER_TRY(LayerNorm) EMBER_TRY(GroupNorm) EMBER_TRY(BatchNorm1d)
  EMBER_TRY(BatchNorm2d) EMBER_TRY(Embedding) EMBER_TRY(GELU) EMBER_TRY(LeakyReLU) EMBER_TRY(ELU)
  EMBER_TRY(Softplus) EMBER_TRY(Softmax) EMBER_TRY(LogSoftmax) EMBER_TRY(Sequential)
  EMBER_TRY(Flatten) EMBER_TRY(Dropout) EMBER_TRY(Conv1d) EMBER_TRY(Conv2d)
  EMBER_TRY(ConvTranspose2d) EMBER_TRY(MaxPool1d) EMBER_TRY(MaxPool2d) EMBER_TRY(AvgPool2d)
  EMBER_TRY(AdaptiveAvgPool2d) EMBER_TRY(Upsample) EMBER_TRY(InstanceNorm1d)
  EMBER_TRY(InstanceNorm2d) EMBER_TRY(InstanceNorm3d) EMBER_TRY(PReLU) EMBER_TRY(Conv3d)
#undef EMBER_TRY
  throw std::runtime_error("no forward for " + m->name());
}

TEST(Layers, ForwardAndGradientsMatchPyTorch) {
  for (const json& c : golden()["cases"]) {
    const std::string name = c["name"];
    SCOPED_TRACE(name);
    auto layer = factories().at(name)();
    StateDict sd;
    for (const auto& [k, v] : c["state_dict"].items()) sd.insert(k, golden_tensor(v));
    layer->load_state_dict(sd);
    layer->train(c["train"].get<bool>());
    Tensor x = golden_tensor(c["input"]);
    Tensor x2 = c.contains("input2") ? golden_tensor(c["input2"]).requires_grad_() : Tensor();
    for (int i = 1; i < c["calls"].get<int>(); ++i) call(layer, x, x2);
    if (x.is_floating_point()) x.requires_grad_();
    const Tensor out = call(layer, x, x2);
    expect_golden_close(out, c["out"], "out");
    (out * golden_tensor(c["grad_out"])).sum().backward();
    for (const auto& [pname, p] : layer->named_parameters())
      expect_golden_close(p.grad(), c["grads"][pname], "grad of " + pname);
    if (c["grads"].contains("input"))
      expect_golden_close(x.grad(), c["grads"]["input"], "grad of input");
    if (x2.defined()) expect_golden_close(x2.grad(), c["grads"]["input2"], "grad of input2");
    for (const auto& [bname, b] : layer->named_buffers()) {
      if (b.dtype() == kInt64)
        EXPECT_EQ(json(b.flatten().tolist<int64_t>()), c["buffers_after"][bname]["data"]) << bname;
      else
        expect_golden_close(b, c["buffers_after"][bname], bname);
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
  EXPECT_EQ(nn::Conv2d(1, 32, 3, {.stride = 1, .padding = 1})->repr(),
            r["conv2d_api"].get<std::string>());
  EXPECT_EQ(nn::Conv1d(2, 4, 3, {.padding = "same", .dilation = 2, .groups = 2, .bias = false,
                                 .padding_mode = "reflect"})->repr(),
            r["conv1d_options"].get<std::string>());
  EXPECT_EQ(nn::ConvTranspose2d(4, 2, 3, {.stride = 2, .output_padding = 1, .groups = 2,
                                          .bias = false, .dilation = {1, 2}})->repr(),
            r["conv_transpose2d_options"].get<std::string>());
  EXPECT_EQ(nn::Sequential(nn::MaxPool2d(2), nn::MaxPool1d(3, {.stride = 2, .padding = 1, .ceil_mode = true}),
                           nn::MaxPool2d({2, 3}, {.stride = {1, 2}, .dilation = 2}), nn::AvgPool2d(2),
                           nn::AvgPool2d({3, 2}, {.stride = 1, .padding = {1, 0}}),
                           nn::AdaptiveAvgPool2d({1, 1}), nn::AdaptiveAvgPool2d(4))->repr(),
            r["pools"].get<std::string>());
  EXPECT_EQ(nn::Sequential(nn::Upsample({.scale_factor = 2}),
                           nn::Upsample({.size = {4, 5}, .mode = "bilinear"}),
                           nn::Upsample({.size = 7, .mode = "linear"}),
                           nn::Upsample({.scale_factor = {2, 1.5}, .mode = "nearest"}))->repr(),
            r["upsamples"].get<std::string>());
  EXPECT_EQ(nn::Bilinear(2, 3, 4, {.bias = false})->repr(), r["bilinear"].get<std::string>());
}

TEST(Layers, ConvInitShapesAndErrors) {
  manual_seed(0);
  nn::Conv2d conv(16, 32, 3, {.stride = 1, .padding = 1});
  EXPECT_EQ(conv->weight.sizes(), std::vector<int64_t>({32, 16, 3, 3}));
  // kaiming_uniform(a = √5) on fan_in = 16 * 9 is U(±1/√144), the bias too.
  const double bound = 1.0 / 12.0;
  EXPECT_LE(conv->weight.abs().max().item<float>(), bound);
  EXPECT_GT(conv->weight.abs().max().item<float>(), 0.95 * bound);
  EXPECT_NEAR(conv->weight.std().item<double>(), bound / std::sqrt(3.0), 0.002);
  EXPECT_LE(conv->bias.abs().max().item<float>(), bound);
  EXPECT_EQ(conv(randn({2, 16, 8, 8})).sizes(), std::vector<int64_t>({2, 32, 8, 8}));
  nn::ConvTranspose2d up(8, 4, 3, {.stride = 2, .padding = 1, .groups = 2});
  EXPECT_EQ(up->weight.sizes(), std::vector<int64_t>({8, 2, 3, 3}));
  // forward(input, output_size) picks output_padding: 7 or 8 from a 4x4 input.
  EXPECT_EQ(up(randn({1, 8, 4, 4})).sizes(), std::vector<int64_t>({1, 4, 7, 7}));
  EXPECT_EQ(up->forward(randn({1, 8, 4, 4}), {8, 7}).sizes(), std::vector<int64_t>({1, 4, 8, 7}));
  EXPECT_THROW(up->forward(randn({1, 8, 4, 4}), {9, 7}), Error);
  EXPECT_THROW(nn::Conv2d(3, 4, 3, {.groups = 2}), Error);
  EXPECT_THROW(nn::Conv2d(4, 4, 3, {.stride = 2, .padding = "same"}), Error);
  EXPECT_THROW(nn::Conv2d(4, 4, 3, {.padding = "full"}), Error);
  EXPECT_THROW(nn::Conv2d(4, 4, 3, {.padding_mode = "mirror"}), Error);
  EXPECT_THROW(nn::ConvTranspose2d(4, 4, 3, {.padding_mode = "reflect"}), Error);
  EXPECT_THROW(nn::Conv2d(4, 4, {3, 3, 3}), Error);
  auto [vals, idx] = nn::MaxPool2d(2)->forward_with_indices(arange(16.0).view({1, 1, 4, 4}));
  EXPECT_EQ(idx.flatten().tolist<int64_t>(), std::vector<int64_t>({5, 7, 13, 15}));
  EXPECT_THROW(nn::Bilinear(3, 2, 4)(randn({5, 3}), randn({4, 2})), Error);
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
