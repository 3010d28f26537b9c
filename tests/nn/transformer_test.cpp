// MultiheadAttention and the Transformer layers against PyTorch 1.13
// (golden/nn_transformer.json, written by gen_nn_transformer.py): with the generator's weights
// loaded through load_state_dict, in training (dropout 0) and eval mode, with bool and float
// masks, the outputs, attention weights, gradients of every parameter and input, the state_dict
// keys and shapes and the repr equal PyTorch's.
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
  static const json data = test::load_golden<json>("nn_transformer.json");
  return data;
}

using test::golden_tensor;

// The layers chain several float32 matmuls and softmaxes, so they get a looser tolerance than
// test_support.h's default for single layers.
void expect_close(const Tensor& got, const json& want, const std::string& what) {
  test::expect_golden_close(got, want, what, 1e-4, 1e-5);
}

using Inputs = std::map<std::string, Tensor>;
struct Case {
  std::function<std::shared_ptr<nn::Module>()> make;
  // (module, inputs, masks) -> (out, weights or undefined)
  std::function<std::tuple<Tensor, Tensor>(nn::Module&, Inputs&, Inputs&)> call;
};

template <class Impl>
Impl& as(nn::Module& m) {
  return dynamic_cast<Impl&>(m);
}

const std::map<std::string, Case>& cases() {
  using MHA = nn::MultiheadAttentionImpl;
  static const std::map<std::string, Case> c = {
      {"mha_self_train",
       {[] { return nn::MultiheadAttention(8, 2).ptr(); },
        [](nn::Module& m, Inputs& i, Inputs&) { return as<MHA>(m).forward(i["x"], i["x"], i["x"]); }}},
      {"mha_cross_masks_eval",
       {[] { return nn::MultiheadAttention(8, 2, {.batch_first = true}).ptr(); },
        [](nn::Module& m, Inputs& i, Inputs& k) {
          return as<MHA>(m).forward(i["q"], i["k"], i["v"],
                                    {.key_padding_mask = k["key_padding_mask"],
                                     .attn_mask = k["attn_mask"], .average_attn_weights = false});
        }}},
      {"mha_float_mask_nobias",
       {[] { return nn::MultiheadAttention(8, 2, {.bias = false}).ptr(); },
        [](nn::Module& m, Inputs& i, Inputs& k) {
          return as<MHA>(m).forward(i["q"], i["kv"], i["kv"],
                                    {.key_padding_mask = k["key_padding_mask"],
                                     .attn_mask = k["attn_mask"]});
        }}},
      {"mha_unbatched_no_weights",
       {[] { return nn::MultiheadAttention(8, 4).ptr(); },
        [](nn::Module& m, Inputs& i, Inputs& k) {
          auto r = as<MHA>(m).forward(i["x"], i["x"], i["x"],
                                      {.key_padding_mask = k["key_padding_mask"],
                                       .need_weights = false});
          EXPECT_FALSE(std::get<1>(r).defined());
          return r;
        }}},
      {"encoder_layer_causal_train",
       {[] { return nn::TransformerEncoderLayer(8, 2, {.dim_feedforward = 16, .dropout = 0.0}).ptr(); },
        [](nn::Module& m, Inputs& i, Inputs& k) {
          return std::tuple(as<nn::TransformerEncoderLayerImpl>(m).forward(i["src"], k["src_mask"]),
                            Tensor());
        }}},
      {"encoder_layer_norm_first_gelu_eval",
       {[] {
          return nn::TransformerEncoderLayer(8, 2, {.dim_feedforward = 12, .activation = "gelu",
                                                    .layer_norm_eps = 1e-6, .batch_first = true,
                                                    .norm_first = true}).ptr();
        },
        [](nn::Module& m, Inputs& i, Inputs& k) {
          return std::tuple(as<nn::TransformerEncoderLayerImpl>(m).forward(
                                i["src"], {}, k["src_key_padding_mask"]),
                            Tensor());
        }}},
      {"encoder_two_layers_norm",
       {[] {
          nn::TransformerEncoderLayer layer(8, 2, {.dim_feedforward = 16, .dropout = 0.0});
          return nn::TransformerEncoder(layer, 2, nn::LayerNorm({8})).ptr();
        },
        [](nn::Module& m, Inputs& i, Inputs& k) {
          return std::tuple(as<nn::TransformerEncoderImpl>(m).forward(i["src"], k["mask"],
                                                                      k["src_key_padding_mask"]),
                            Tensor());
        }}},
      {"decoder_layer_train",
       {[] { return nn::TransformerDecoderLayer(8, 2, {.dim_feedforward = 16, .dropout = 0.0}).ptr(); },
        [](nn::Module& m, Inputs& i, Inputs& k) {
          return std::tuple(as<nn::TransformerDecoderLayerImpl>(m).forward(
                                i["tgt"], i["memory"], k["tgt_mask"], {}, {},
                                k["memory_key_padding_mask"]),
                            Tensor());
        }}},
      {"decoder_layer_norm_first_eval",
       {[] {
          return nn::TransformerDecoderLayer(8, 2, {.dim_feedforward = 16, .activation = "gelu",
                                                    .batch_first = true, .norm_first = true}).ptr();
        },
        [](nn::Module& m, Inputs& i, Inputs& k) {
          return std::tuple(as<nn::TransformerDecoderLayerImpl>(m).forward(i["tgt"], i["memory"],
                                                                           k["tgt_mask"]),
                            Tensor());
        }}},
  };
  return c;
}

std::vector<std::pair<std::string, std::vector<int64_t>>> keys_and_shapes(const nn::Module& m) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> out;
  const StateDict sd = m.state_dict();
  for (const std::string& k : sd.keys()) out.emplace_back(k, sd.at(k).sizes().vec());
  return out;
}

std::vector<std::pair<std::string, std::vector<int64_t>>> keys_and_shapes(const json& j) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> out;
  for (const json& e : j) out.emplace_back(e[0].get<std::string>(), e[1].get<std::vector<int64_t>>());
  return out;
}

TEST(Transformer, MatchesPyTorch) {
  for (const json& c : golden()["cases"]) {
    const std::string name = c["name"];
    SCOPED_TRACE(name);
    const Case& tc = cases().at(name);
    auto m = tc.make();
    EXPECT_EQ(keys_and_shapes(*m), keys_and_shapes(c["state_dict_shapes"]));
    EXPECT_EQ(m->repr(), c["repr"].get<std::string>());
    StateDict sd;
    for (const auto& [k, v] : c["state_dict"].items()) sd.insert(k, golden_tensor(v));
    m->load_state_dict(sd);
    m->train(c["train"].get<bool>());
    Inputs inputs, masks;
    for (const auto& [k, v] : c["inputs"].items()) inputs[k] = golden_tensor(v).requires_grad_();
    for (const auto& [k, v] : c["masks"].items()) masks[k] = golden_tensor(v);
    auto [out, weights] = tc.call(*m, inputs, masks);
    expect_close(out, c["out"], "out");
    Tensor loss = (out * golden_tensor(c["grad_out"])).sum();
    if (c.contains("weights")) {
      expect_close(weights, c["weights"], "attention weights");
      loss = loss + (weights * golden_tensor(c["grad_weights"])).sum();
    }
    loss.backward();
    for (const auto& [pname, p] : m->named_parameters())
      expect_close(p.grad(), c["grads"][pname], "grad of " + pname);
    for (const auto& [k, v] : inputs) expect_close(v.grad(), c["grads"]["input." + k], "grad of " + k);
  }
}

TEST(Transformer, ApiSpellingsStateDictAndErrors) {
  nn::TransformerEncoderLayer layer(256, 8, {.dim_feedforward = 1024});
  EXPECT_EQ(keys_and_shapes(*layer), keys_and_shapes(golden()["encoder_layer_256_8"]));
  nn::MultiheadAttention mha(256, 8);
  EXPECT_EQ(mha->repr(), golden()["mha_repr"].get<std::string>());
  // PyTorch's init: xavier_uniform in_proj_weight (bound √(6 / (E + 3E))), zero biases.
  // The weights are drawn in float32, so the largest may round up to the float just above the
  // double bound (the default generator's seed differs per process, as PyTorch's does).
  const double bound = std::sqrt(6.0 / (256 + 768));
  EXPECT_LE(mha->in_proj_weight.abs().max().item<float>(),
            std::nextafter(static_cast<float>(bound), 1.0f));
  EXPECT_GT(mha->in_proj_weight.abs().max().item<float>(), 0.95 * bound);
  EXPECT_EQ(mha->in_proj_bias.abs().sum().item<float>(), 0.0f);
  EXPECT_EQ(mha->out_proj->bias.abs().sum().item<float>(), 0.0f);
  const Tensor x = randn({5, 2, 256});
  auto [y, w] = mha->forward(x, x, x);
  EXPECT_EQ(y.sizes(), x.sizes());
  EXPECT_EQ(w.sizes(), std::vector<int64_t>({2, 5, 5}));
  EXPECT_TRUE(allclose(w.sum(-1), ones({2, 5}), 1e-5, 1e-5));
  EXPECT_EQ(layer(x).sizes(), x.sizes());

  // The encoder's layers start as copies of the given one but do not share tensors.
  nn::TransformerEncoder enc(layer, 3);
  auto l0 = std::static_pointer_cast<nn::TransformerEncoderLayerImpl>((*enc->layers)[0]);
  auto l2 = std::static_pointer_cast<nn::TransformerEncoderLayerImpl>((*enc->layers)[2]);
  EXPECT_TRUE(l0->linear1->weight.equal(layer->linear1->weight));
  EXPECT_TRUE(l2->linear1->weight.equal(layer->linear1->weight));
  EXPECT_NE(l0->linear1->weight.data_ptr(), l2->linear1->weight.data_ptr());
  EXPECT_EQ(enc->named_parameters().size(), 3 * layer->named_parameters().size());

  EXPECT_THROW(nn::MultiheadAttention(10, 3), Error);
  EXPECT_THROW(nn::TransformerEncoderLayer(8, 2, {.activation = "tanh"}), Error);
  EXPECT_THROW(mha->forward(x, x, x, {.attn_mask = zeros({4, 5})}), Error);
  EXPECT_THROW(mha->forward(x, x, x, {.key_padding_mask = zeros({5, 2}, {.dtype = kBool})}), Error);
  EXPECT_THROW(mha->forward(randn({5, 2, 128}), x, x), Error);
  // A query that may attend nowhere gets NaN, as PyTorch's math path.
  nn::MultiheadAttention small(4, 1);
  const Tensor s = randn({2, 1, 4});
  auto [ys, ws] = small->forward(s, s, s, {.attn_mask = ones({2, 2}, {.dtype = kBool})});
  EXPECT_TRUE(isnan(ys).all().item<bool>());
}

}  // namespace
