// LibTorch's C++ frontend idioms, written as LibTorch spells them (torch:: dropped) with
// `using namespace ember;`: each compiles unchanged and behaves as in LibTorch. The idioms that
// do not compile are in tests/core/libtorch_rejected/ (each with the message naming ember's
// spelling) and the list of both is docs/libtorch-idioms.md.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <ember/ember.h>

using namespace ember;

namespace {

// x.grad().zero_(): the direct translation of Python's param.grad.zero_().
TEST(LibTorchIdioms, GradZeroThroughTheConstGrad) {
  Tensor w = ones({3}, requires_grad());
  (w * 2).sum().backward();
  EXPECT_TRUE(w.grad().equal(full({3}, 2.0)));
  w.grad().zero_();
  EXPECT_TRUE(w.grad().equal(zeros({3})));
  (w * 3).sum().backward();  // accumulates into the zeroed storage
  EXPECT_TRUE(w.grad().equal(full({3}, 3.0)));
}

// In-place methods on a const handle write the shared data, as LibTorch's const methods do.
TEST(LibTorchIdioms, InPlaceOnAConstHandle) {
  const Tensor t = zeros({2, 2});
  const uint32_t version = t._version();
  t.add_(1).mul_(3);
  t.index_put_({0, 0}, 7);
  EXPECT_TRUE(t.equal(tensor({{7.0, 3.0}, {3.0, 3.0}})));
  EXPECT_GT(t._version(), version);

  // An SGD step over `const Tensor&` parameters, as LibTorch code writes it.
  std::vector<Tensor> params = {ones({2}, requires_grad()), full({3}, 2.0, requires_grad())};
  (params[0].sum() + params[1].sum() * 2).backward();
  for (const auto& p : params) {
    NoGradGuard no_grad;
    p.sub_(p.grad() * 0.5);
  }
  EXPECT_TRUE(params[0].equal(full({2}, 0.5)));
  EXPECT_TRUE(params[1].equal(full({3}, 1.0)));

  // Autograd records an in-place op made through a const reference.
  Tensor x = full({2}, 3.0, requires_grad());
  const Tensor& y = x * 1;
  y.mul_(2).relu_();
  y.sum().backward();
  EXPECT_EQ(y.grad_fn()->name(), "ReluBackward0");
  EXPECT_TRUE(x.grad().equal(full({2}, 2.0)));
}

// torch::TensorOptions by the free functions' chain, and a dtype or device alone.
TEST(LibTorchIdioms, FactoriesTakeOptionsTheLibTorchWays) {
  auto options = dtype(kFloat64).device(kCPU).requires_grad(true);
  Tensor a = full({3, 4}, 123, options);
  EXPECT_EQ(a.dtype(), kFloat64);
  EXPECT_TRUE(a.requires_grad());
  EXPECT_EQ(a.index({1, 2}).item<double>(), 123);

  EXPECT_EQ(zeros({2, 3}, kInt32).dtype(), kInt32);
  EXPECT_EQ(ones(10, kInt64).sizes(), std::vector<int64_t>{10});
  EXPECT_EQ(empty(5, kCPU).device(), Device(kCPU));
  EXPECT_EQ(randn({2, 3}, kFloat64).dtype(), kFloat64);
  Tensor r = randn(3, requires_grad());
  EXPECT_TRUE(r.requires_grad() && r.dtype() == kFloat32 && r.numel() == 3);
  EXPECT_EQ(rand({4}, dtype(kFloat64)).dtype(), kFloat64);
  EXPECT_EQ(randint(0, 10, {5}, kInt32).dtype(), kInt32);
  EXPECT_EQ(randperm(6, kInt32).dtype(), kInt32);
  EXPECT_TRUE(arange(0, 4, kFloat64).equal(tensor({0.0, 1.0, 2.0, 3.0}, kFloat64)));
  EXPECT_TRUE(arange(1, 4, dtype(kInt32)).equal(tensor({1, 2, 3}, kInt32)));
  EXPECT_EQ(arange(5, kInt16).dtype(), kInt16);
  EXPECT_EQ(eye(3, kFloat64).dtype(), kFloat64);
  EXPECT_EQ(linspace(0, 1, 5, kFloat64).dtype(), kFloat64);
  EXPECT_TRUE(tensor({1.0, 2.0}, requires_grad()).requires_grad());
  EXPECT_EQ(zeros_like(a, kInt64).dtype(), kInt64);
  EXPECT_EQ(full_like(a, 2, kInt32).dtype(), kInt32);
  EXPECT_EQ(kShort, kInt16);
  EXPECT_EQ(kChar, kInt8);
  // API.md's spellings keep working next to them.
  EXPECT_EQ(zeros({2}, {.dtype = kInt64}).dtype(), kInt64);
  EXPECT_TRUE(tensor(2.0, {.requires_grad = true}).requires_grad());

  float data[6] = {1, 2, 3, 4, 5, 6};
  Tensor blob = from_blob(data, {2, 3});
  EXPECT_EQ(blob.dtype(), kFloat32);
  EXPECT_EQ(blob.strides(), std::vector<int64_t>({3, 1}));
  data[4] = 50;  // shares the memory
  EXPECT_EQ(blob.index({1, 1}).item<float>(), 50);
  double d[2] = {1.5, 2.5};
  EXPECT_EQ(from_blob(d, {2}, kFloat64).sum().item<double>(), 4.0);
}

// The "Autograd in C++ frontend" tutorial, line by line.
TEST(LibTorchIdioms, AutogradTutorial) {
  auto x = ones({2, 2}, requires_grad());
  auto y = x + 2;
  EXPECT_EQ(y.grad_fn()->name(), "AddBackward1");
  auto z = y * y * 3;
  auto out = z.mean();
  out.backward();
  EXPECT_TRUE(x.grad().allclose(full({2, 2}, 4.5)));

  x = randn(3, requires_grad());
  y = x * 2;
  while (y.norm().item<double>() < 1000) y = y * 2;
  auto v = tensor({0.1, 1.0, 0.0001}, kFloat);
  y.backward(v);
  const double scale = (y / x).index({0}).item<double>();
  EXPECT_TRUE(x.grad().allclose(v * scale));

  EXPECT_TRUE(x.requires_grad());
  EXPECT_TRUE(x.pow(2).requires_grad());
  {
    NoGradGuard no_grad;
    EXPECT_FALSE(x.pow(2).requires_grad());
  }
  y = x.detach();
  EXPECT_FALSE(y.requires_grad());
  EXPECT_TRUE(x.eq(y).all().item<bool>());

  // Higher-order gradients: autograd::grad with positional grad_outputs, create_graph.
  auto model = nn::Linear(4, 3);
  auto input = randn({3, 4}).requires_grad_(true);
  auto output = model(input);
  auto grad_output = ones_like(output);
  auto gradient = autograd::grad({output}, {input}, /*grad_outputs=*/{grad_output},
                                 /*retain_graph=*/true, /*create_graph=*/true)[0];
  EXPECT_TRUE(gradient.allclose(model->weight.sum(0).expand({3, 4})));
  auto gradient_penalty = pow((gradient.norm(2, /*dim=*/1) - 1), 2).mean();
  gradient_penalty.backward();
  EXPECT_TRUE(model->weight.grad().defined());
}

// The MNIST example's network and training step (pytorch/examples cpp/mnist).
struct Net : nn::Module {
  Net()
      : conv1(register_module("conv1", nn::Conv2d(1, 10, /*kernel_size=*/5))),
        conv2(register_module("conv2", nn::Conv2d(10, 20, /*kernel_size=*/5))),
        fc1(register_module("fc1", nn::Linear(320, 50))),
        fc2(register_module("fc2", nn::Linear(50, 10))) {}

  Tensor forward(Tensor x) {
    x = relu(max_pool2d(conv1->forward(x), 2));
    x = relu(max_pool2d(conv2_drop->forward(conv2->forward(x)), 2));
    x = x.view({-1, 320});
    x = relu(fc1->forward(x));
    x = dropout(x, /*p=*/0.5, /*training=*/is_training());
    x = fc2->forward(x);
    return log_softmax(x, /*dim=*/1);
  }

  nn::Conv2d conv1;
  nn::Conv2d conv2;
  nn::Dropout2d conv2_drop = register_module("conv2_drop", nn::Dropout2d());
  nn::Linear fc1;
  nn::Linear fc2;
};

TEST(LibTorchIdioms, MnistExampleTrainingStep) {
  manual_seed(1);
  Device device(kCPU);
  if (cuda::is_available()) device = Device(kCUDA);
  auto model = std::make_shared<Net>();
  model->to(device);
  optim::SGD optimizer(model->parameters(), /*lr=*/0.01);

  model->train();
  auto data = randn({4, 1, 28, 28}).to(device);
  auto targets = tensor({1, 2, 3, 4}).to(device);
  Tensor before = model->fc2->weight.clone();
  optimizer.zero_grad();
  auto output = model->forward(data);
  auto loss = nll_loss(output, targets);
  loss.backward();
  Tensor step = model->fc2->weight.grad() * 0.01;
  optimizer.step();
  EXPECT_TRUE(model->fc2->weight.allclose(before - step));
  EXPECT_GT(loss.template item<float>(), 0.0f);
  EXPECT_EQ(loss.item().toFloat(), loss.item<float>());
  EXPECT_EQ(loss.item().toDouble(), loss.item<double>());

  model->eval();
  NoGradGuard no_grad;
  auto pred = model->forward(data).argmax(1);
  const int64_t correct = pred.eq(targets).sum().template item<int64_t>();
  EXPECT_GE(correct, 0);
  EXPECT_LE(correct, 4);
}

// DCGAN tutorial pieces: labels from empty(n).uniform_(a, b), fill_, binary_cross_entropy.
TEST(LibTorchIdioms, DcganLabelsAndLoss) {
  manual_seed(0);
  Tensor real_labels = empty(1000).uniform_(0.8, 1.0);
  EXPECT_GE(real_labels.min().item<float>(), 0.8f);
  EXPECT_LT(real_labels.max().item<float>(), 1.0f);
  manual_seed(0);
  Tensor same = empty(1000);
  uniform_(same, 0.8, 1.0);  // the method is the free fill
  EXPECT_TRUE(real_labels.equal(same));
  EXPECT_GT(empty(1000).normal_(5.0, 0.1).mean().item<float>(), 4.9f);

  Tensor fake_labels = zeros(4);
  fake_labels.fill_(1);
  EXPECT_TRUE(fake_labels.equal(ones({4})));
  auto output = sigmoid(tensor({0.5, -0.5, 2.0, 0.0}));
  auto d_loss = binary_cross_entropy(output, fake_labels);
  EXPECT_NEAR(d_loss.item<float>(), -output.log().mean().item<float>(), 1e-6);
}

// Indexing: "..." is Ellipsis, as in LibTorch; any other string is an error, not `true`.
TEST(LibTorchIdioms, EllipsisAsAString) {
  Tensor t = arange(24).view({2, 3, 4});
  EXPECT_TRUE(t.index({"...", 0}).equal(t.index({indexing::Ellipsis, 0})));
  EXPECT_TRUE(t.index({0, "..."}).equal(t.index({0})));
  try {
    t.index({".."});
    FAIL() << "expected ember::Error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "[index] the only string index is \"...\" (Ellipsis), got \"..\"");
  }
}

// `t[i] = x` writes into row i, as in LibTorch and Python (PyTorch 1.13's results): a scalar
// fills (converted as fill_ does: -56 into uint8 is 200), a tensor is copied in (broadcast).
// Assigning to a named handle still re-points it.
TEST(LibTorchIdioms, AssigningToATemporaryWritesTheElements) {
  Tensor w = zeros({2, 3});
  w[0] = 1.5;
  w[1] = tensor({1.0, 2.0, 3.0});
  w[1][2] = 7;
  EXPECT_TRUE(w.equal(tensor({{1.5, 1.5, 1.5}, {1.0, 2.0, 7.0}})));
  w.index({indexing::Slice(), 0}) = tensor({9.0});
  EXPECT_TRUE(w.equal(tensor({{9.0, 1.5, 1.5}, {9.0, 2.0, 7.0}})));

  Tensor targets = zeros({2}, kUInt8);
  const std::vector<char> bytes = {char(-56), 3};
  for (size_t i = 0; i < bytes.size(); ++i) targets[int64_t(i)] = bytes[i];
  EXPECT_TRUE(targets.equal(tensor({200, 3}).to(kUInt8)));

  Tensor row = w[0];
  row = ones({3});  // a named handle: re-pointed, w unchanged
  EXPECT_EQ(w[0][0].item<double>(), 9.0);
  EXPECT_THROW(w[0] = ones({4}), Error);  // not broadcastable to the row
}

// a.max(b) / a.min(b): LibTorch's elementwise maximum and minimum.
TEST(LibTorchIdioms, MaxAndMinOfTwoTensors) {
  Tensor a = tensor({1.0, 5.0, 3.0}), b = tensor({4.0, 2.0, 3.0});
  EXPECT_TRUE(a.max(b).equal(tensor({4.0, 5.0, 3.0})));
  EXPECT_TRUE(a.min(b).equal(tensor({1.0, 2.0, 3.0})));
}

// unsqueeze_, squeeze_, t_, transpose_ change the tensor itself; with history the tensor takes
// PyTorch 1.13's *Backward1 nodes (names and gradients from PyTorch), and a leaf that requires
// grad is refused, as every in-place op.
TEST(LibTorchIdioms, InPlaceShapeChanges) {
  Tensor a = arange(6.0).view({2, 1, 3});
  Tensor same = a;
  a.unsqueeze_(0);
  EXPECT_EQ(same.sizes(), IntArrayRef({1, 2, 1, 3}));  // every handle sees the new shape
  a.squeeze_();
  EXPECT_EQ(a.sizes(), IntArrayRef({2, 3}));
  a.t_();
  EXPECT_EQ(a.sizes(), IntArrayRef({3, 2}));
  EXPECT_EQ(a.strides(), IntArrayRef({1, 3}));
  a.transpose_(0, 1);
  EXPECT_EQ(a.strides(), IntArrayRef({3, 1}));
  a.unsqueeze_(1).squeeze_(1);
  EXPECT_EQ(a.sizes(), IntArrayRef({2, 3}));

  const std::vector<std::pair<std::string, std::function<void(Tensor&)>>> ops = {
      {"UnsqueezeBackward1", [](Tensor& t) { t.unsqueeze_(0); }},
      {"SqueezeBackward2", [](Tensor& t) { t.squeeze_(); }},
      {"SqueezeBackward3", [](Tensor& t) { t.squeeze_(1); }},
      {"TBackward1", [](Tensor& t) { t = t.select(1, 0); t.t_(); }},
      {"TransposeBackward1", [](Tensor& t) { t.transpose_(0, 2); }}};
  for (const auto& [node, op] : ops) {
    Tensor leaf = arange(6.0).view({2, 1, 3}).requires_grad_();
    Tensor b = leaf * tensor({1.0, 2.0, 3.0});
    op(b);
    EXPECT_EQ(b.grad_fn()->name(), node);
    (b * b).sum().backward();
    EXPECT_TRUE(leaf.grad().allclose(tensor({{{0.0, 8.0, 36.0}}, {{6.0, 32.0, 90.0}}})))
        << node << ": " << leaf.grad();
  }
  Tensor leaf = zeros({3}, requires_grad());
  EXPECT_THROW(leaf.unsqueeze_(0), Error);
  EXPECT_EQ(leaf.dim(), 1);  // refused before anything changed
  {
    NoGradGuard no_grad;
    leaf.unsqueeze_(0);
  }
  EXPECT_EQ(leaf.sizes(), IntArrayRef({1, 3}));
  EXPECT_THROW(zeros({2, 3, 4}).t_(), Error);
}

}  // namespace
