// Activation checkpointing: gradients equal those without checkpointing (dropout included, thanks
// to the saved RNG state), the activations really are recomputed and not kept (counted calls,
// the allocator's peak), nesting, and apply_activation_checkpointing's choice of modules.
#include <ember/amp/autocast.h>
#include <ember/ember.h>
#include <ember/utils/checkpoint.h>
#include <gtest/gtest.h>

#include <any>
#include <string>
#include <vector>

#include "golden_support.h"

namespace ember {
namespace {

using utils::checkpoint;

std::vector<double> flat(const Tensor& t) { return t.to(kFloat64).flatten().tolist<double>(); }

void expect_equal(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_TRUE(got.defined()) << what;
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  EXPECT_EQ(flat(got), flat(want)) << what;
}

// A block whose backward needs its activations: tanh and exp save their outputs, mul its inputs.
Tensor block(const Tensor& x, const Tensor& w) { return (x.matmul(w).tanh() * x).exp(); }

TEST(SavedTensorsHooks, PackSeesEverySavedTensorAndUnpackFeedsTheBackward) {
  Tensor x = tensor({1.0, 2.0, 3.0}).requires_grad_();
  int packed = 0, unpacked = 0;
  Tensor y;
  {
    autograd::graph::saved_tensors_hooks hooks(
        [&](const Tensor& t) -> std::any {
          ++packed;
          return t.clone();  // kept elsewhere: the graph holds the copy only
        },
        [&](const std::any& p) {
          ++unpacked;
          return std::any_cast<Tensor>(p);
        });
    y = (x * x).exp();  // mul saves both inputs, exp its output
  }
  EXPECT_EQ(packed, 3);
  EXPECT_EQ(unpacked, 0);
  y.sum().backward();
  EXPECT_EQ(unpacked, 3);
  const Tensor want = (x * x).exp().detach() * x.detach() * 2;
  EXPECT_EQ(flat(x.grad()), flat(want));
}

TEST(Checkpoint, GradientsEqualTheUncheckpointedOnesAndTheFunctionRunsAgainInBackward) {
  manual_seed(0);
  Tensor w = randn({4, 4}).requires_grad_();
  Tensor x = randn({3, 4}).requires_grad_();

  block(x, w).sum().backward();
  const Tensor gx = x.grad().clone(), gw = w.grad().clone();
  x.mutable_grad().zero_();
  w.mutable_grad().zero_();

  int calls = 0;
  Tensor y = checkpoint(
      [&](const Tensor& in) {
        ++calls;
        return block(in, w);
      },
      x);
  EXPECT_EQ(calls, 1);
  ASSERT_TRUE(y.grad_fn());
  EXPECT_EQ(y.grad_fn()->name(), "ExpBackward0");
  y.sum().backward();
  EXPECT_EQ(calls, 2) << "backward recomputes the function once";
  expect_equal(x.grad(), gx, "x.grad");
  expect_equal(w.grad(), gw, "w.grad");
}

TEST(Checkpoint, ParametersInsideGetGradientsWhenNoInputRequiresGrad) {
  manual_seed(1);
  Tensor w = randn({4, 4}).requires_grad_();
  Tensor x = randn({3, 4});
  block(x, w).sum().backward();
  const Tensor gw = w.grad().clone();
  w.mutable_grad().zero_();
  checkpoint([&](const Tensor& in) { return block(in, w); }, x).sum().backward();
  expect_equal(w.grad(), gw, "w.grad");
  EXPECT_FALSE(x.grad().defined());
}

// Linear -> Dropout(0.5) -> Linear: the recomputed mask must be the forward's.
struct DropoutNet : nn::Module {
  nn::Linear fc1, fc2;
  nn::Dropout drop;
  DropoutNet()
      : fc1(register_module("fc1", nn::Linear(8, 16))),
        fc2(register_module("fc2", nn::Linear(16, 4))),
        drop(register_module("drop", nn::Dropout(0.5))) {}
  Tensor forward(const Tensor& x) { return fc2(drop(relu(fc1(x)))); }
};

TEST(Checkpoint, DropoutRecomputesTheSameMaskWithPreserveRngState) {
  manual_seed(2);
  auto net = std::make_shared<DropoutNet>();
  Tensor x = randn({5, 8}).requires_grad_();
  auto grads = [&] {
    std::vector<Tensor> g{x.grad().clone()};
    for (const Tensor& p : net->parameters()) g.push_back(p.grad().clone());
    x.mutable_grad().zero_();
    net->zero_grad();
    return g;
  };

  manual_seed(7);
  net->forward(x).pow(2).sum().backward();
  const double after_plain = rand({1}).item<double>();
  const auto want = grads();

  manual_seed(7);
  checkpoint([&](const Tensor& in) { return net->forward(in); }, x).pow(2).sum().backward();
  EXPECT_EQ(rand({1}).item<double>(), after_plain)
      << "the recompute puts the surrounding RNG state back";
  auto got = grads();
  for (size_t i = 0; i < want.size(); ++i)
    expect_equal(got[i], want[i], "grad " + std::to_string(i));

  // Without the saved state the recompute draws a new mask: the gradients are wrong, as in
  // PyTorch (this is what preserve_rng_state is for).
  manual_seed(7);
  utils::checkpoint([&](const std::vector<Tensor>& in) { return std::vector{net->forward(in[0])}; },
                    {x}, {.preserve_rng_state = false})[0]
      .pow(2)
      .sum()
      .backward();
  got = grads();
  EXPECT_NE(flat(got[1]), flat(want[1])) << "fc1.weight's gradient sees a different mask";
}

// tests/golden/gen_activation_checkpoint.py: the same net in PyTorch 1.13, checkpointed with
// use_reentrant=False, with and without preserve_rng_state (then the recompute draws a new mask).
TEST(Checkpoint, MatchesPyTorch113WithAndWithoutThePreservedRngState) {
  const auto golden = test::load_golden("activation_checkpoint.json");
  auto net = std::make_shared<DropoutNet>();
  StateDict sd;
  for (const auto& [key, value] : golden["state_dict"].items())
    sd.insert(key, test::golden_tensor(value));
  net->load_state_dict(sd);
  const Tensor x0 = test::golden_tensor(golden["x"]);
  for (const auto& c : golden["cases"]) {
    const std::string name = c["name"];
    Tensor x = x0.clone().requires_grad_();
    net->zero_grad();
    manual_seed(7);
    Tensor out =
        name == "plain"
            ? net->forward(x)
            : checkpoint(
                  [&](const std::vector<Tensor>& in) { return std::vector{net->forward(in[0])}; },
                  {x}, {.preserve_rng_state = name == "preserve"})[0];
    Tensor loss = out.pow(2).sum();
    loss.backward();
    test::expect_golden_close(loss, c["loss"], name + " loss");
    test::expect_golden_close(x.grad(), c["grads"]["x"], name + " x.grad");
    for (const auto& [param, p] : net->named_parameters())
      test::expect_golden_close(p.grad(), c["grads"][param], name + " " + param + ".grad");
  }
}

TEST(Checkpoint, TheRecomputeRunsUnderTheForwardsAutocastSettings) {
  // The backward runs outside the autocast region: the recompute must still run in bfloat16,
  // or it would save float32 tensors where the forward's graph expects bfloat16 ones.
  manual_seed(8);
  nn::Linear fc1(8, 16), fc2(16, 4);
  Tensor x = randn({5, 8}).requires_grad_();
  auto f = [&](const Tensor& in) { return fc2(relu(fc1(in))); };
  auto grads = [&](bool checkpointed) {
    Tensor out;
    {
      amp::autocast ac(kCPU, kBFloat16);
      out = checkpointed ? checkpoint(f, x) : f(x);
    }
    EXPECT_EQ(out.dtype(), kBFloat16);
    out.to(kFloat32).pow(2).sum().backward();
    std::vector<Tensor> g{x.grad().clone(), fc1->weight.grad().clone()};
    x.mutable_grad() = Tensor();
    fc1->zero_grad();
    fc2->zero_grad();
    return g;
  };
  const auto want = grads(false), got = grads(true);
  expect_equal(got[0], want[0], "x.grad");
  expect_equal(got[1], want[1], "fc1.weight.grad");
}

TEST(Checkpoint, NestedCheckpointsGiveTheSameGradients) {
  manual_seed(3);
  Tensor w1 = randn({4, 4}).requires_grad_(), w2 = randn({4, 4}).requires_grad_();
  Tensor x = randn({2, 4}).requires_grad_();
  auto inner = [&](const Tensor& h) { return block(h, w2); };
  auto outer_plain = [&](const Tensor& in) { return inner(block(in, w1)).sigmoid(); };
  outer_plain(x).sum().backward();
  const Tensor gx = x.grad().clone(), g1 = w1.grad().clone(), g2 = w2.grad().clone();
  x.mutable_grad().zero_();
  w1.mutable_grad().zero_();
  w2.mutable_grad().zero_();

  int inner_calls = 0;
  Tensor y = checkpoint(
      [&](const Tensor& in) {
        Tensor h = block(in, w1);
        return checkpoint(
                   [&](const Tensor& a) {
                     ++inner_calls;
                     return inner(a);
                   },
                   h)
            .sigmoid();
      },
      x);
  y.sum().backward();
  // The forward, the outer recompute (which runs the inner checkpoint's forward again) and the
  // inner recompute.
  EXPECT_EQ(inner_calls, 3);
  expect_equal(x.grad(), gx, "x.grad");
  expect_equal(w1.grad(), g1, "w1.grad");
  expect_equal(w2.grad(), g2, "w2.grad");
}

TEST(Checkpoint, RetainGraphRecomputesForTheSecondBackward) {
  manual_seed(4);
  Tensor w = randn({4, 4}).requires_grad_();
  Tensor x = randn({3, 4}).requires_grad_();
  block(x, w).sum().backward();
  const Tensor gw = w.grad().clone();
  w.mutable_grad().zero_();
  x.mutable_grad().zero_();

  int calls = 0;
  Tensor loss = checkpoint(
                    [&](const Tensor& in) {
                      ++calls;
                      return block(in, w);
                    },
                    x)
                    .sum();
  loss.backward({.retain_graph = true});
  loss.backward();
  EXPECT_EQ(calls, 3);
  expect_equal(w.grad(), gw * 2, "w.grad after two backwards");
}

TEST(Checkpoint, AFunctionThatSavesLessWhenRecomputedIsRefused) {
  Tensor x = randn({3}).requires_grad_();
  int calls = 0;
  Tensor y = checkpoint(
      [&](const Tensor& in) { return ++calls == 1 ? in.exp().exp() : in.exp() * 1.0; }, x);
  try {
    y.sum().backward();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("[checkpoint]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("same graph"), std::string::npos) << e.what();
  }
}

TEST(Checkpoint, ActivationsAreFreedAfterTheForwardAndPeakMemoryDrops) {
  // Four blocks of eight element-wise ops on 1 MiB tensors. Without checkpointing the tensors
  // the ops save live until backward (exp, tanh and sigmoid save their outputs, sin its input,
  // which is already saved: 6 new ones per block); with it only the block outputs do, and the
  // backward recomputes one block at a time.
  manual_seed(5);
  Tensor x = randn({256, 1024}).requires_grad_();
  auto chain = [](const Tensor& t) {
    return t.sin().exp().tanh().sigmoid().sin().exp().tanh().sigmoid();
  };
  auto run = [&](bool checkpointed) {
    x.mutable_grad() = Tensor();
    cpu::reset_peak_allocated_bytes();
    const size_t base = cpu::allocator_stats().allocated_bytes;
    Tensor h = x;
    for (int b = 0; b < 4; ++b) h = checkpointed ? checkpoint(chain, h) : chain(h);
    const size_t after_forward = cpu::allocator_stats().allocated_bytes - base;
    h.sum().backward();
    const size_t peak = cpu::allocator_stats().peak_allocated_bytes - base;
    return std::pair{after_forward, peak};
  };
  const auto [plain_kept, plain_peak] = run(false);
  const Tensor plain_grad = x.grad().clone();
  const auto [ckpt_kept, ckpt_peak] = run(true);
  expect_equal(x.grad(), plain_grad, "x.grad");
  const size_t mib = size_t(1) << 20;
  // 24 saved activations (1 MiB each) against the 4 block outputs.
  EXPECT_GE(plain_kept, 24 * mib);
  EXPECT_LE(ckpt_kept, 5 * mib) << "kept after the checkpointed forward";
  EXPECT_LT(double(ckpt_peak), 0.6 * double(plain_peak))
      << "peak " << ckpt_peak << " bytes with checkpointing, " << plain_peak << " without";
}

struct Encoder : nn::Module {
  nn::Linear embed;
  nn::TransformerEncoder encoder;
  nn::Linear head;
  Encoder()
      : embed(register_module("embed", nn::Linear(6, 16))),
        encoder(register_module(
            "encoder", nn::TransformerEncoder(
                           nn::TransformerEncoderLayer(
                               16, 2, {.dim_feedforward = 32, .dropout = 0.2, .batch_first = true}),
                           3))),
        head(register_module("head", nn::Linear(16, 2))) {}
  Tensor forward(const Tensor& x) { return head(encoder(embed(x))); }
};

bool is_encoder_layer(const nn::Module& m) {
  return dynamic_cast<const nn::TransformerEncoderLayerImpl*>(&m) != nullptr;
}

TEST(ApplyActivationCheckpointing, WrapsTheMatchedModulesAndKeepsGradientsAndState) {
  manual_seed(6);
  auto model = std::make_shared<Encoder>();
  Tensor x = randn({4, 5, 6});
  const auto keys_before = model->state_dict().keys();

  manual_seed(11);
  model->forward(x).pow(2).mean().backward();
  std::vector<Tensor> want;
  for (const Tensor& p : model->parameters()) want.push_back(p.grad().clone());
  model->zero_grad();

  const auto wrapped = utils::apply_activation_checkpointing(*model, is_encoder_layer);
  EXPECT_EQ(wrapped,
            (std::vector<std::string>{"encoder.layers.0", "encoder.layers.1", "encoder.layers.2"}));
  for (const auto& [name, m] : model->named_modules())
    EXPECT_EQ(utils::is_activation_checkpointed(*m), is_encoder_layer(*m)) << name;
  EXPECT_EQ(model->state_dict().keys(), keys_before) << "parameter names are unchanged";

  manual_seed(11);
  model->forward(x).pow(2).mean().backward();
  const auto params = model->parameters();
  for (size_t i = 0; i < params.size(); ++i)
    expect_equal(params[i].grad(), want[i], "parameter " + std::to_string(i));

  // The wrapped model keeps less for its backward (the allocator's peak over a step).
  auto peak_of_step = [&](Encoder& m) {
    m.zero_grad();
    const Tensor big = randn({8, 64, 6});
    cpu::reset_peak_allocated_bytes();
    const size_t base = cpu::allocator_stats().allocated_bytes;
    m.forward(big).pow(2).mean().backward();
    return cpu::allocator_stats().peak_allocated_bytes - base;
  };
  manual_seed(12);
  auto plain = std::make_shared<Encoder>();
  const size_t plain_peak = peak_of_step(*plain), wrapped_peak = peak_of_step(*model);
  EXPECT_LT(double(wrapped_peak), 0.8 * double(plain_peak))
      << wrapped_peak << " bytes with checkpointing, " << plain_peak << " without";

  // The root is never wrapped, and wrapping twice is refused by name.
  EXPECT_TRUE(utils::apply_activation_checkpointing(*model->head, [](const nn::Module&) {
                return true;
              }).empty());
  try {
    utils::apply_activation_checkpointing(*model, is_encoder_layer);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'encoder.layers.0'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ember
