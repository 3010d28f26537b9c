// torch::nn's layers built with LibTorch's option builders and positional forms: each runs
// forward on seeded input and prints a checksum; the options read back through the getters.
#include <torch/torch.h>

#include <cstdio>
#include <iostream>
#include <vector>

namespace nn = torch::nn;

static void show(const char* name, const torch::Tensor& y) {
  std::printf("%-22s sizes", name);
  for (int64_t s : y.sizes()) std::printf(" %lld", static_cast<long long>(s));
  std::printf("  sum %.5f  abs %.5f\n", y.sum().item<float>(), y.abs().sum().item<float>());
}

int main() {
  torch::manual_seed(0);
  auto x2 = torch::randn({3, 4});
  auto img = torch::randn({2, 3, 8, 8});
  auto seq = torch::randn({2, 3, 10});

  // ── linear layers ─────────────────────────────────────────────────────
  nn::Linear fc(4, 5);
  nn::Linear fc_nobias(nn::LinearOptions(4, 5).bias(false));
  show("Linear", fc(x2));
  show("Linear(bias=false)", fc_nobias(x2));
  std::printf("fc options %lld %lld %d; nobias bias defined %d\n",
              static_cast<long long>(fc->options.in_features()),
              static_cast<long long>(fc->options.out_features()), fc->options.bias(),
              fc_nobias->bias.defined());
  nn::Bilinear bil(nn::BilinearOptions(4, 3, 2));
  show("Bilinear", bil(x2, torch::randn({3, 3})));
  show("Identity", nn::Identity()(x2));
  show("Flatten", nn::Flatten()(img));
  show("Flatten(0, 1)", nn::Flatten(nn::FlattenOptions().start_dim(0).end_dim(1))(img));
  show("Unflatten", nn::Unflatten(1, std::vector<int64_t>{2, 2})(x2));

  // ── convolutions ──────────────────────────────────────────────────────
  nn::Conv2d conv(3, 4, 3);
  nn::Conv2d conv_b(nn::Conv2dOptions(3, 2, {3, 5}).stride(2).padding(1).bias(false));
  nn::Conv2d conv_same(nn::Conv2dOptions(3, 2, 3).padding(torch::kSame).dilation(2));
  nn::Conv2d conv_reflect(
      nn::Conv2dOptions(3, 2, 3).padding({1, 2}).padding_mode(torch::kReflect).groups(1));
  nn::Conv2d conv_valid(nn::Conv2dOptions(3, 3, 3).padding(torch::kValid).groups(3));
  show("Conv2d", conv(img));
  show("Conv2d(builder)", conv_b(img));
  show("Conv2d(same)", conv_same(img));
  show("Conv2d(reflect)", conv_reflect(img));
  show("Conv2d(valid,groups)", conv_valid(img));
  auto ks = conv_b->options.kernel_size();
  std::printf("conv_b kernel %lld %lld stride %lld groups %lld\n",
              static_cast<long long>(ks->at(0)), static_cast<long long>(ks->at(1)),
              static_cast<long long>((*conv_b->options.stride())[0]),
              static_cast<long long>(conv_b->options.groups()));
  nn::Conv1d conv1(nn::Conv1dOptions(3, 2, 3).stride(1).padding(1).padding_mode(torch::kCircular));
  show("Conv1d(circular)", conv1(seq));
  nn::ConvTranspose2d deconv(nn::ConvTranspose2dOptions(3, 2, 3).stride(2).output_padding(1));
  show("ConvTranspose2d", deconv(img));
  show("ConvTranspose2d(size)", deconv->forward(img, at::IntArrayRef({17, 17})));

  // ── normalisation and dropout ─────────────────────────────────────────
  nn::BatchNorm2d bn(nn::BatchNorm2dOptions(3).momentum(0.2).eps(1e-3));
  show("BatchNorm2d(train)", bn(img));
  std::printf("running_mean %.5f running_var %.5f tracked %lld\n",
              bn->running_mean.sum().item<float>(), bn->running_var.sum().item<float>(),
              static_cast<long long>(bn->num_batches_tracked.item<int64_t>()));
  bn->eval();
  show("BatchNorm2d(eval)", bn(img));
  nn::BatchNorm1d bn1(4);
  show("BatchNorm1d", bn1(x2));
  nn::BatchNorm1d bn_cma(nn::BatchNorm1dOptions(4).momentum(c10::nullopt).affine(false));
  bn_cma(x2);
  bn_cma(x2 * 2);
  std::printf("cumulative running_mean %.5f, weight defined %d\n",
              bn_cma->running_mean.sum().item<float>(), bn_cma->weight.defined());
  show("LayerNorm", nn::LayerNorm(nn::LayerNormOptions({4}).eps(1e-6))(x2));
  show("LayerNorm(vector)", nn::LayerNorm(std::vector<int64_t>{8, 8})(img));
  show("GroupNorm", nn::GroupNorm(nn::GroupNormOptions(1, 3).affine(false))(img));
  nn::Dropout drop(nn::DropoutOptions().p(0.25));
  show("Dropout(train)", drop(x2));
  drop->eval();
  show("Dropout(eval)", drop(x2));
  show("Dropout2d", nn::Dropout2d(0.5)(img));
  std::printf("dropout p %.2f inplace %d\n", drop->options.p(), drop->options.inplace());

  // ── embedding ─────────────────────────────────────────────────────────
  nn::Embedding emb(nn::EmbeddingOptions(10, 3).padding_idx(0));
  auto idx = torch::tensor({0, 3, 9, 3}, torch::kLong);
  show("Embedding", emb(idx));
  show("Embedding(plain)", nn::Embedding(6, 2)(idx.remainder(6)));
  auto pretrained = nn::Embedding::from_pretrained(torch::arange(12.).view({4, 3}));
  show("from_pretrained", pretrained(torch::tensor({1, 3}, torch::kLong)));
  std::printf("pretrained requires_grad %d\n", pretrained->weight.requires_grad());
  show("after pretrained draw", torch::randn({2}));

  // ── pooling and resampling ────────────────────────────────────────────
  show("MaxPool2d", nn::MaxPool2d(2)(img));
  show("MaxPool2d(builder)", nn::MaxPool2d(nn::MaxPool2dOptions({3, 2}).stride(1).padding(1))(img));
  show("MaxPool1d", nn::MaxPool1d(nn::MaxPool1dOptions(3).stride(2).ceil_mode(true))(seq));
  auto [values, indices] = nn::MaxPool2d(2)->forward_with_indices(img);
  std::printf("max_pool indices sum %lld\n", static_cast<long long>(indices.sum().item<int64_t>()));
  show("AvgPool2d", nn::AvgPool2d(nn::AvgPool2dOptions(3).stride(2).padding(1))(img));
  show("AvgPool2d(no pad)",
       nn::AvgPool2d(nn::AvgPool2dOptions(3).stride(2).padding(1).count_include_pad(false))(img));
  show("AdaptiveAvgPool2d", nn::AdaptiveAvgPool2d(3)(img));
  show("AdaptiveAvgPool2d(None)",
       nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({2, c10::nullopt}))(img));
  show("Upsample(nearest)",
       nn::Upsample(nn::UpsampleOptions().scale_factor(std::vector<double>{2, 2}))(img));
  show("Upsample(bilinear)", nn::Upsample(nn::UpsampleOptions()
                                              .size(std::vector<int64_t>{5, 7})
                                              .mode(torch::kBilinear)
                                              .align_corners(false))(img));

  // ── activations ───────────────────────────────────────────────────────
  show("ReLU", nn::ReLU()(x2));
  show("ReLU6", nn::ReLU6()(x2 * 10));
  show("LeakyReLU", nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2))(x2));
  show("ELU", nn::ELU(nn::ELUOptions().alpha(0.5))(x2));
  show("GELU", nn::GELU()(x2));
  show("GELU(tanh)", nn::GELU(nn::GELUOptions().approximate("tanh"))(x2));
  show("SiLU", nn::SiLU()(x2));
  show("Mish", nn::Mish()(x2));
  show("Sigmoid", nn::Sigmoid()(x2));
  show("Tanh", nn::Tanh()(x2));
  show("Softmax", nn::Softmax(1)(x2));
  show("LogSoftmax", nn::LogSoftmax(nn::LogSoftmaxOptions(0))(x2));
  show("Softplus", nn::Softplus(nn::SoftplusOptions().beta(2).threshold(1))(x2));
  auto y = x2.clone();
  nn::ReLU(nn::ReLUOptions().inplace(true))(y);
  show("ReLU(inplace) input", y);
  auto z = x2.clone();
  nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.5).inplace(true))(z);
  show("LeakyReLU(inplace)", z);

  // ── instance normalisation and PReLU ─────────────────────────────────
  nn::InstanceNorm2d in2(nn::InstanceNorm2dOptions(3).affine(true).track_running_stats(true));
  show("InstanceNorm2d", in2(img));
  show("InstanceNorm2d running", in2->running_mean + in2->running_var);
  in2->eval();
  show("InstanceNorm2d(eval)", in2(img));
  nn::InstanceNorm1d in1(nn::InstanceNorm1dOptions(3).eps(1e-3).momentum(0.5));
  show("InstanceNorm1d", in1(seq));
  show("InstanceNorm1d(unbatched)", in1(seq[0]));
  show("InstanceNorm3d", nn::InstanceNorm3d(3)(img.unsqueeze(2)));
  show("F::instance_norm",
       torch::nn::functional::instance_norm(
           seq, torch::nn::functional::InstanceNormFuncOptions().weight(torch::ones({3}) * 2)));
  nn::PReLU prelu(nn::PReLUOptions().num_parameters(3).init(0.1));
  auto pin = img.clone().requires_grad_();
  auto pout = prelu(pin);
  show("PReLU(3)", pout);
  (pout * pout).sum().backward();
  show("PReLU weight grad", prelu->weight.grad());
  show("PReLU input grad", pin.grad());
  show("PReLU()", nn::PReLU()(x2));
  show("F::prelu", torch::nn::functional::prelu(x2, torch::full({1}, 0.3)));
  std::cout << in2 << "\n" << in1 << "\n" << prelu << "\n" << nn::PReLU() << "\n";
  for (const auto& b : in2->named_buffers()) std::cout << "buffer " << b.key() << "\n";

  // ── Conv3d ───────────────────────────────────────────────────────────
  auto vol = torch::randn({2, 3, 5, 6, 4});
  nn::Conv3d conv3(3, 4, 3);
  nn::Conv3d conv3_b(
      nn::Conv3dOptions(3, 2, {2, 3, 1}).stride({2, 1, 1}).padding({1, 0, 0}).bias(false));
  nn::Conv3d conv3_same(
      nn::Conv3dOptions(3, 3, 2).padding(torch::kSame).groups(3).padding_mode(torch::kReplicate));
  show("Conv3d", conv3(vol));
  show("Conv3d(options)", conv3_b(vol));
  show("Conv3d(same)", conv3_same(vol));
  show("F::conv3d", torch::nn::functional::conv3d(
                        vol, conv3->weight, torch::nn::functional::Conv3dFuncOptions().padding(1)));
  std::cout << conv3 << "\n" << conv3_b << "\n" << conv3_same << "\n";
  return 0;
}
