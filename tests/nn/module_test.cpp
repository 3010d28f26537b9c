// nn::Module against PyTorch 1.13 (golden/nn_module.json, written by gen_nn_module.py): the
// reference's MyModel and a nested model with a tied weight list the same parameter, buffer and
// module names and shapes, state_dict keys and repr; load_state_dict reports missing, unexpected
// and mismatched keys with PyTorch's messages; plus hooks, modes, dtype moves and handles.
#include "golden_dir.h"
#include "test_support.h"
#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/nn/cloneable.h>
#include <ember/nn/init.h>
#include <ember/nn/layers/linear.h>
#include <ember/nn/module.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace {

using namespace ember;
using json = nlohmann::ordered_json;  // keeps the generator's key order

const json& golden() {
  static const json data = [] {
    std::ifstream f(ember::test::golden_path("nn_module.json"));
    return json::parse(f);
  }();
  return data;
}

// The reference's model, spelled as in API.md.
struct MyModel : nn::Module {
  nn::Linear linear1, linear2;
  Tensor step_count;
  int64_t hidden_dim;
  MyModel(int64_t in, int64_t hidden, int64_t classes)
      : linear1(register_module("linear1", nn::Linear(in, hidden))),
        linear2(register_module("linear2", nn::Linear(hidden, classes))),
        step_count(register_buffer("step_count", zeros({1}))),
        hidden_dim(hidden) {}
  Tensor forward(const Tensor& x) {
    {
      NoGradGuard g;
      step_count.add_(1);
    }
    return linear2(relu(linear1(x)));
  }
};

// A nested model whose head shares the encoder's first weight (tied weights).
struct Tied : nn::Module {
  std::shared_ptr<MyModel> encoder;
  nn::Linear head;
  Tied()
      : encoder(register_module("encoder", std::make_shared<MyModel>(4, 4, 4))),
        head(register_module("head", nn::Linear(4, 4, {.bias = false}))) {
    head->weight = head->register_parameter("weight", encoder->linear1->weight);
    register_buffer("scratch", zeros({2}), /*persistent=*/false);
    register_buffer("scale", ones({3}));
  }
};

json describe(const nn::Module& m) {
  json d;
  d["named_parameters"] = json::array();
  for (auto& [name, p] : m.named_parameters())
    d["named_parameters"].push_back({name, p.sizes().vec(), p.requires_grad()});
  d["named_buffers"] = json::array();
  for (auto& [name, b] : m.named_buffers()) d["named_buffers"].push_back({name, b.sizes().vec()});
  d["named_modules"] = json::array();
  for (auto& [name, mod] : m.named_modules()) d["named_modules"].push_back({name, mod->name()});
  d["named_children"] = json::array();
  for (auto& [name, mod] : m.named_children()) d["named_children"].push_back(name);
  d["state_dict"] = json::array();
  for (auto& [key, t] : m.state_dict()) d["state_dict"].push_back({key, t.sizes().vec()});
  d["repr"] = m.repr();
  return d;
}

void expect_same_description(const json& got, const json& want) {
  for (const char* field : {"named_parameters", "named_buffers", "named_modules",
                            "named_children", "state_dict", "repr"})
    EXPECT_EQ(got[field], want[field]) << field;
}

TEST(Module, MyModelMatchesPyTorch) {
  auto model = std::make_shared<MyModel>(64, 128, 10);
  expect_same_description(describe(*model), golden()["mymodel"]);
  std::ostringstream os;
  os << *model;
  EXPECT_EQ(os.str(), golden()["mymodel"]["repr"].get<std::string>());
  EXPECT_EQ(model->parameters().size(), 4u);
  EXPECT_EQ(model->children().size(), 2u);
  EXPECT_EQ(model->modules().size(), 3u);
  EXPECT_TRUE(model->modules()[0].get() == model.get());
}

TEST(Module, TiedWeightsAndNonPersistentBuffers) {
  auto model = std::make_shared<Tied>();
  expect_same_description(describe(*model), golden()["tied"]);
  // The shared parameter is one tensor under two names in state_dict, once in parameters().
  EXPECT_TRUE(model->head->weight.is_same(model->encoder->linear1->weight));
  EXPECT_EQ(model->buffers().size(), 3u);  // scratch, scale, encoder.step_count
}

TEST(Module, HandlesShareTheModule) {
  nn::Linear a(3, 2);
  nn::Linear b = a;  // a copy of the handle, not of the layer
  EXPECT_EQ(a.get(), b.get());
  b->weight.requires_grad_(false);
  EXPECT_FALSE(a->weight.requires_grad());
  const Tensor x = randn({5, 3});
  EXPECT_TRUE(a(x).equal(matmul(x, a->weight.t()) + a->bias));
  nn::Linear empty{nullptr};
  EXPECT_THROW((void)empty->weight, Error);
}

TEST(Module, LinearInitialisationMatchesPyTorchBitForBit) {
  manual_seed(0);
  nn::Linear lin(4, 3);
  const auto& want = golden()["linear_init_seed0"];
  EXPECT_EQ(lin->weight.flatten().tolist<float>(), want["weight"].get<std::vector<float>>());
  EXPECT_EQ(lin->bias.tolist<float>(), want["bias"].get<std::vector<float>>());
}

TEST(Module, LoadStateDictReportsLikePyTorch) {
  for (const json& c : golden()["loads"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    auto model = std::make_shared<MyModel>(8, 6, 4);
    auto source = std::make_shared<MyModel>(8, 6, 4);
    StateDict sd = source->state_dict();
    for (const auto& k : c["drop"]) sd.erase(k.get<std::string>());
    for (const auto& [k, shape] : c["add"].items())
      sd.insert(k, zeros(shape.get<std::vector<int64_t>>()));
    for (const auto& [k, shape] : c["resize"].items())
      sd.insert(k, zeros(shape.get<std::vector<int64_t>>()));
    const nn::LoadStateDictOptions options{.strict = c["strict"].get<bool>()};
    if (c.contains("error")) {
      try {
        model->load_state_dict(sd, options);
        ADD_FAILURE() << "no error";
      } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "[load_state_dict] " + c["error"].get<std::string>());
      }
      continue;
    }
    const nn::IncompatibleKeys keys = model->load_state_dict(sd, options);
    EXPECT_EQ(json(keys.missing_keys), c["missing"]);
    EXPECT_EQ(json(keys.unexpected_keys), c["unexpected"]);
    // Loaded values land in the existing tensors: the member handles see them.
    if (sd.contains("linear1.weight")) {
      EXPECT_TRUE(model->linear1->weight.equal(sd["linear1.weight"]));
    }
  }
}

TEST(Module, LoadStateDictCopiesIntoExistingTensors) {
  auto model = std::make_shared<MyModel>(3, 4, 2);
  const Tensor weight_before = model->linear1->weight;
  StateDict sd = model->state_dict();
  sd.insert("step_count", full({1}, 7.0));
  sd.insert("linear1.weight", ones({4, 3}));
  model->load_state_dict(sd);
  EXPECT_EQ(model->step_count.item<float>(), 7.0f);
  EXPECT_TRUE(model->linear1->weight.is_same(weight_before));
  EXPECT_TRUE(weight_before.equal(ones({4, 3})));
  EXPECT_TRUE(weight_before.requires_grad());
  // state_dict values are detached views of the live tensors.
  const StateDict again = model->state_dict();
  EXPECT_FALSE(again["linear1.weight"].requires_grad());
  model->linear1->weight.detach().fill_(2.0);
  EXPECT_EQ(again["linear1.weight"].index({0, 0}).item<float>(), 2.0f);
}

TEST(Module, TrainEvalRecurse) {
  auto model = std::make_shared<Tied>();
  EXPECT_TRUE(model->is_training());
  model->eval();
  for (auto& m : model->modules()) EXPECT_FALSE(m->is_training()) << m->name();
  model->encoder->train();
  EXPECT_FALSE(model->is_training());
  EXPECT_TRUE(model->encoder->linear2->is_training());
  model->train();
  for (auto& m : model->modules()) EXPECT_TRUE(m->is_training());
}

TEST(Module, ToDtypeKeepsHandles) {
  auto model = std::make_shared<MyModel>(3, 4, 2);
  const Tensor w = model->linear1->weight;
  const std::vector<float> before = w.flatten().tolist<float>();
  model->forward(randn({2, 3})).sum().backward();
  const Tensor long_buffer = model->register_buffer("count", zeros({2}, {.dtype = kInt64}));
  model->to(kFloat64);
  EXPECT_EQ(w.dtype(), kFloat64);  // the old handle sees the new dtype
  EXPECT_EQ(model->step_count.dtype(), kFloat64);
  EXPECT_EQ(long_buffer.dtype(), kInt64);  // integer buffers keep theirs
  EXPECT_EQ(w.grad().dtype(), kFloat64);
  EXPECT_TRUE(w.requires_grad() && w.is_leaf());
  const std::vector<double> after = w.flatten().tolist<double>();
  for (size_t i = 0; i < before.size(); ++i) EXPECT_EQ(after[i], double(before[i]));
  const Tensor y = model->forward(randn({2, 3}, {.dtype = kFloat64}));
  EXPECT_EQ(y.dtype(), kFloat64);
  y.sum().backward();
  EXPECT_EQ(model->linear2->bias.grad().dtype(), kFloat64);
  EXPECT_THROW(model->to(kInt32), Error);
}

TEST(Module, ZeroGradApplyRequiresGrad) {
  auto model = std::make_shared<MyModel>(3, 4, 2);
  model->forward(randn({2, 3})).sum().backward();
  model->zero_grad();  // zeroes, as PyTorch 1.13's default
  for (const Tensor& p : model->parameters()) {
    ASSERT_TRUE(p.grad().defined());
    EXPECT_EQ(p.grad().abs().sum().item<float>(), 0.0f);
  }
  model->zero_grad(/*set_to_none=*/true);
  for (const Tensor& p : model->parameters()) EXPECT_FALSE(p.grad().defined());

  std::vector<std::string> order;
  model->apply([&](nn::Module& m) { order.push_back(m.name()); });
  EXPECT_EQ(order, (std::vector<std::string>{"Linear", "Linear", "MyModel"}));
  model->requires_grad_(false);
  for (const Tensor& p : model->parameters()) EXPECT_FALSE(p.requires_grad());
}

TEST(Module, RegistrationErrors) {
  nn::Module m;
  EXPECT_THROW(m.register_parameter("a.b", zeros({1})), Error);
  EXPECT_THROW(m.register_buffer("", zeros({1})), Error);
  m.register_parameter("w", zeros({1}));
  EXPECT_THROW(m.register_buffer("w", zeros({1})), Error);
  // Re-registering a parameter replaces it in place.
  m.register_parameter("w", ones({2}));
  ASSERT_EQ(m.named_parameters().size(), 1u);
  EXPECT_EQ(m.named_parameters()[0].second.numel(), 2);
  // An absent parameter (bias=None) is skipped everywhere.
  m.register_parameter("bias", Tensor());
  EXPECT_EQ(m.parameters().size(), 1u);
  EXPECT_EQ(m.state_dict().size(), 1u);
  EXPECT_EQ(m.name(), "Module");
}

TEST(Module, ReplaceAndUnregisterChildren) {
  nn::Module m;
  auto fc = m.register_module("fc", nn::Linear(2, 3));
  m.register_module("act", nn::ReLU());
  // The new child takes the old one's place (and name); the caller re-points its handle.
  fc = m.replace_module("fc", nn::Linear(2, 5));
  auto children = m.named_children();
  ASSERT_EQ(children.size(), 2u);
  EXPECT_EQ(children[0].first, "fc");
  EXPECT_EQ(children[0].second.get(), fc.ptr().get());
  EXPECT_EQ(m.named_parameters()[0].second.sizes(), (std::vector<int64_t>{5, 2}));
  EXPECT_ERROR(m.replace_module("head", nn::Linear(2, 5)),
               "[replace_module] Submodule 'head' is not defined");
  m.unregister_module("act");
  EXPECT_EQ(m.named_children().size(), 1u);
  EXPECT_ERROR(m.unregister_module("act"), "No Module with name `act` is registered");
}

TEST(Module, SetRequiresGradAsLibTorch) {
  auto leaf = ones({2});
  EXPECT_TRUE(leaf.set_requires_grad(true).requires_grad());
  const auto result = leaf * 2;
  // A graph result keeps requiring grad (its grad_fn decides) instead of refusing, as LibTorch.
  EXPECT_TRUE(result.set_requires_grad(false).requires_grad());
  leaf.set_requires_grad(false);
  EXPECT_FALSE(leaf.requires_grad());
  EXPECT_ERROR(zeros({2}, {.dtype = kInt64}).set_requires_grad(true),
               "only Tensors of floating point dtype can require gradients");
}

TEST(Module, ForwardHooksSeeAndReplace) {
  auto model = std::make_shared<MyModel>(3, 4, 2);
  Tensor captured, pre_seen;
  model->linear1->register_forward_pre_hook(
      [&](nn::Module&, const std::vector<Tensor>& in) { pre_seen = in[0]; });
  nn::Module* hooked = nullptr;
  auto handle = model->linear1->register_forward_hook(
      [&](nn::Module& m, const std::vector<Tensor>&, const Tensor& out) {
        hooked = &m;
        captured = out.detach();
      });
  const Tensor x = randn({5, 3});
  model->forward(x);
  EXPECT_EQ(hooked, model->linear1.get());
  EXPECT_TRUE(pre_seen.is_same(x));
  EXPECT_TRUE(captured.equal(nn::functional::linear(x, model->linear1->weight, model->linear1->bias)));

  // A hook returning a tensor replaces the output; a pre-hook can replace the input.
  auto doubling = model->linear2->register_forward_hook(
      [](nn::Module&, const std::vector<Tensor>&, const Tensor& out) { return out * 2; });
  const Tensor h = relu(model->linear1(x));
  EXPECT_TRUE(model->linear2(h).equal(model->linear2->forward(h) * 2));
  doubling.remove();
  EXPECT_TRUE(model->linear2(h).equal(model->linear2->forward(h)));
  auto zero_in = model->linear2->register_forward_pre_hook(
      [](nn::Module&, const std::vector<Tensor>& in) { return zeros_like(in[0]); });
  EXPECT_TRUE(model->linear2(h).equal(model->linear2->bias.detach().expand({5, 2})));
  zero_in.remove();

  handle.remove();
  captured = Tensor();
  model->forward(x);
  EXPECT_FALSE(captured.defined());
}

TEST(Module, FullBackwardHookGradients) {
  manual_seed(1);
  auto model = std::make_shared<MyModel>(3, 4, 2);
  std::vector<Tensor> grad_in, grad_out;
  int calls = 0;
  auto handle = model->linear2->register_full_backward_hook(
      [&](nn::Module&, const std::vector<Tensor>& gi, const std::vector<Tensor>& go) {
        ++calls;
        grad_in = gi;
        grad_out = go;
      });
  const Tensor x = randn({5, 3});
  const Tensor target = randn({5, 2});
  Tensor y = model->forward(x);
  ((y - target) * (y - target)).sum().backward();
  ASSERT_EQ(calls, 1);
  ASSERT_EQ(grad_out.size(), 1u);
  ASSERT_EQ(grad_in.size(), 1u);
  // grad_output = dL/dy = 2 (y - t); grad_input = grad_output @ W.
  EXPECT_TRUE(allclose(grad_out[0], 2 * (y.detach() - target)));
  EXPECT_TRUE(allclose(grad_in[0], matmul(grad_out[0], model->linear2->weight.detach())));

  // A hook returning gradients replaces grad_input: zeros stop the flow into linear1.
  handle.remove();
  model->zero_grad();
  model->linear2->register_full_backward_hook(
      [](nn::Module&, const std::vector<Tensor>& gi, const std::vector<Tensor>&) {
        return std::vector<Tensor>{zeros_like(gi[0])};
      });
  model->forward(x).sum().backward();
  EXPECT_EQ(model->linear1->weight.grad().abs().sum().item<float>(), 0.0f);
  EXPECT_GT(model->linear2->weight.grad().abs().sum().item<float>(), 0.0f);
}

TEST(Module, BackwardHookWithoutInputGrad) {
  nn::Linear lin(3, 2);
  std::vector<Tensor> grad_in, grad_out;
  lin->register_full_backward_hook(
      [&](nn::Module&, const std::vector<Tensor>& gi, const std::vector<Tensor>& go) {
        grad_in = gi;
        grad_out = go;
      });
  lin(randn({4, 3})).sum().backward();  // the input does not require grad
  ASSERT_EQ(grad_in.size(), 1u);
  EXPECT_FALSE(grad_in[0].defined());
  ASSERT_EQ(grad_out.size(), 1u);
  EXPECT_TRUE(grad_out[0].equal(ones({4, 2})));
}

TEST(Module, InitStatistics) {
  manual_seed(3);
  Tensor w = empty({400, 300});
  nn::init::kaiming_uniform_(w, {.a = std::sqrt(5.0)});
  const double bound = 1.0 / std::sqrt(300.0);  // gain sqrt(1/3) * sqrt(3 / fan_in)
  EXPECT_LE(w.abs().max().item<double>(), bound);
  EXPECT_NEAR(w.std().item<double>(), bound / std::sqrt(3.0), 2e-3 * bound);
  nn::init::xavier_normal_(w);
  EXPECT_NEAR(w.std().item<double>(), std::sqrt(2.0 / 700), 0.01 * std::sqrt(2.0 / 700));
  nn::init::trunc_normal_(w, {.std = 1.0, .a = -0.5, .b = 0.5});
  EXPECT_LE(w.abs().max().item<double>(), 0.5);
  EXPECT_NEAR(w.mean().item<double>(), 0.0, 0.01);
  Tensor q = empty({3, 5});
  nn::init::orthogonal_(q, {.gain = 2.0});
  EXPECT_TRUE(allclose(matmul(q, q.t()), 4 * eye(3), 1e-5, 1e-5));
  EXPECT_EQ(nn::init::calculate_gain("leaky_relu", std::sqrt(5.0)), std::sqrt(2.0 / 6.000000000000001));
  EXPECT_THROW(nn::init::calculate_fan_in_and_fan_out(zeros({3})), Error);
}

TEST(Module, ModulesWithoutSelf) {
  auto all = std::make_shared<MyModel>(2, 3, 4);
  EXPECT_EQ(all->modules().size(), 3u);
  EXPECT_EQ(all->modules(/*include_self=*/false).size(), 2u);
  auto named = all->named_modules("net", /*include_self=*/false);
  ASSERT_EQ(named.size(), 2u);
  EXPECT_EQ(named[0].first, "net.linear1");
}

// A module keeping state outside its registered tensors overrides the virtual to(); the
// parent's to() reaches the override through its children, as LibTorch's does.
struct Holder : nn::Module {
  Tensor outside = zeros({2});
  std::vector<std::string> calls;
  void to(Dtype dtype, bool non_blocking) override {
    nn::Module::to(dtype, non_blocking);
    outside = outside.to(dtype);
    calls.push_back("dtype");
  }
  void to(Device device, bool non_blocking) override {
    nn::Module::to(device, non_blocking);
    outside = outside.to(device);
    calls.push_back("device");
  }
};

TEST(Module, ToReachesOverridesOfChildren) {
  auto parent = std::make_shared<MyModel>(2, 2, 2);
  auto holder = parent->register_module("holder", std::make_shared<Holder>());
  parent->to(kFloat64);
  parent->to(Device(kCPU));
  EXPECT_EQ(holder->calls, (std::vector<std::string>{"dtype", "device"}));
  EXPECT_EQ(holder->outside.dtype(), kFloat64);
  EXPECT_EQ(parent->linear1->weight.dtype(), kFloat64);
  EXPECT_THROW(parent->to(kInt64, false), Error);
}

TEST(Module, AsOnAConstModule) {
  const MyModel m(2, 3, 4);
  const nn::Module& first = *m.children()[0];
  const auto* linear = first.as<nn::Linear>();
  ASSERT_NE(linear, nullptr);
  EXPECT_EQ(linear->weight.size(0), 3);
  EXPECT_EQ(first.as<MyModel>(), nullptr);
}

// Cloneable: reset() registers everything; clone() re-runs it on a copy and copies the values.
struct Net : nn::Cloneable<Net> {
  int64_t width;
  nn::Linear fc{nullptr};
  Tensor scale, count;
  bool register_scale_in_reset = true;
  explicit Net(int64_t w) : width(w) { reset(); }
  void reset() override {
    fc = register_module("fc", nn::Linear(width, width));
    if (register_scale_in_reset) scale = register_parameter("scale", ones({width}));
    count = register_buffer("count", zeros({1}, kInt64));
  }
};

TEST(Module, CloneableDeepCopies) {
  auto net = std::make_shared<Net>(3);
  {
    NoGradGuard no_grad;
    net->scale.mul_(2);
    net->count.add_(5);
  }
  net->eval();
  auto copy = std::dynamic_pointer_cast<Net>(net->clone());
  ASSERT_NE(copy, nullptr);
  EXPECT_FALSE(copy->is_training());
  EXPECT_FALSE(copy->fc->weight.is_same(net->fc->weight));
  EXPECT_NE(copy->fc->weight.data_ptr(), net->fc->weight.data_ptr());
  EXPECT_TRUE(copy->fc->weight.equal(net->fc->weight));
  EXPECT_TRUE(copy->scale.equal(full({3}, 2.0)));
  EXPECT_EQ(copy->count.item<int64_t>(), 5);
  EXPECT_TRUE(copy->scale.requires_grad());
  // The copy's registry holds its own tensors: training it leaves the original alone.
  auto params = copy->parameters();
  ASSERT_EQ(params.size(), 3u);
  EXPECT_TRUE(params[0].is_same(copy->scale));  // its own first, then fc's
  EXPECT_TRUE(params[1].is_same(copy->fc->weight));
  {
    NoGradGuard no_grad;
    for (auto& p : params) p.zero_();
  }
  EXPECT_TRUE(net->scale.equal(full({3}, 2.0)));

  // A reset() that registers less than the original has is named.
  net->register_scale_in_reset = false;
  try {
    net->clone();
    FAIL() << "expected ember::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not have the same number of parameters"),
              std::string::npos)
        << e.what();
  }
  // A module that is not Cloneable says how to become one.
  try {
    MyModel(1, 1, 1).clone();
    FAIL() << "expected ember::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Subclass torch::nn::Cloneable<MyModel>"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
