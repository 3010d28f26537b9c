// torch::nn::functional with LibTorch's FuncOptions builders (namespace F =
// torch::nn::functional): activations, dropout, convolution, pooling, normalisation,
// embedding, distances, padding, interpolation and the losses.
#include <torch/torch.h>

#include <cstdio>
#include <vector>

namespace F = torch::nn::functional;

static void show(const char* name, const torch::Tensor& y) {
  std::printf("%-30s sizes", name);
  for (int64_t s : y.sizes()) std::printf(" %lld", static_cast<long long>(s));
  std::printf("  sum %.5f  abs %.5f\n", y.sum().item<float>(), y.abs().sum().item<float>());
}

int main() {
  torch::manual_seed(3);
  auto x = torch::randn({4, 5});
  auto img = torch::randn({2, 3, 7, 7});
  auto seq = torch::randn({2, 3, 9});

  // ── activations ───────────────────────────────────────────────────────
  show("relu", F::relu(x));
  show("relu6", F::relu6(x * 8));
  show("leaky_relu", F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.3)));
  show("elu", F::elu(x, F::ELUFuncOptions().alpha(2)));
  show("selu", F::selu(x));
  show("gelu", F::gelu(x));
  show("gelu(tanh)", F::gelu(x, F::GELUFuncOptions().approximate("tanh")));
  show("silu", F::silu(x));
  show("mish", F::mish(x));
  show("hardtanh", F::hardtanh(x, F::HardtanhFuncOptions().min_val(-0.5).max_val(0.5)));
  show("softplus", F::softplus(x, F::SoftplusFuncOptions().beta(0.5).threshold(10)));
  show("softmax", F::softmax(x, F::SoftmaxFuncOptions(1)));
  show("softmax(double)", F::softmax(x, F::SoftmaxFuncOptions(0).dtype(torch::kFloat64)));
  show("log_softmax", F::log_softmax(x, F::LogSoftmaxFuncOptions(1)));
  auto inplace = x.clone();
  F::relu(inplace, F::ReLUFuncOptions().inplace(true));
  show("relu(inplace) input", inplace);
  auto inplace2 = x.clone();
  F::elu(inplace2, F::ELUFuncOptions().inplace(true));
  show("elu(inplace) input", inplace2);

  // ── dropout ───────────────────────────────────────────────────────────
  show("dropout", F::dropout(x, F::DropoutFuncOptions().p(0.5)));
  show("dropout(eval)", F::dropout(x, F::DropoutFuncOptions().p(0.5).training(false)));
  show("dropout2d", F::dropout2d(img, F::Dropout2dFuncOptions().p(0.3)));

  // ── convolution ───────────────────────────────────────────────────────
  auto w = torch::randn({4, 3, 3, 3});
  auto b = torch::randn({4});
  show("conv2d", F::conv2d(img, w));
  show("conv2d(options)", F::conv2d(img, w, F::Conv2dFuncOptions().bias(b).stride(2).padding(1)));
  show("conv2d(same)", F::conv2d(img, w, F::Conv2dFuncOptions().padding(torch::kSame)));
  show("conv2d(list padding)", F::conv2d(img, w, F::Conv2dFuncOptions().padding({0, 2})));
  show("conv1d", F::conv1d(seq, torch::randn({2, 3, 2}), F::Conv1dFuncOptions().dilation(2)));
  show("conv_transpose2d", F::conv_transpose2d(img, torch::randn({3, 2, 3, 3}),
                                               F::ConvTranspose2dFuncOptions().stride(2)));
  show("conv_transpose1d", F::conv_transpose1d(seq, torch::randn({3, 2, 2})));

  // ── pooling ───────────────────────────────────────────────────────────
  show("max_pool2d", F::max_pool2d(img, F::MaxPool2dFuncOptions(2)));
  show("max_pool2d(options)",
       F::max_pool2d(img, F::MaxPool2dFuncOptions(3).stride(2).padding(1).ceil_mode(true)));
  auto [pooled, where] = F::max_pool2d_with_indices(img, F::MaxPool2dFuncOptions({2, 3}));
  std::printf("max_pool2d_with_indices %.5f %lld\n", pooled.sum().item<float>(),
              static_cast<long long>(where.sum().item<int64_t>()));
  show("max_pool1d", F::max_pool1d(seq, F::MaxPool1dFuncOptions(2).stride(1)));
  show("avg_pool2d", F::avg_pool2d(img, F::AvgPool2dFuncOptions(3).stride(2)));
  show("avg_pool2d(divisor)", F::avg_pool2d(img, F::AvgPool2dFuncOptions(2).divisor_override(3)));
  show("avg_pool1d", F::avg_pool1d(seq, F::AvgPool1dFuncOptions(3)));
  show("adaptive_avg_pool2d", F::adaptive_avg_pool2d(img, F::AdaptiveAvgPool2dFuncOptions(3)));
  show("adaptive_avg_pool2d(None)",
       F::adaptive_avg_pool2d(img, F::AdaptiveAvgPool2dFuncOptions({c10::nullopt, 2})));
  show("adaptive_avg_pool1d", F::adaptive_avg_pool1d(seq, F::AdaptiveAvgPool1dFuncOptions(4)));
  show("adaptive_max_pool2d", F::adaptive_max_pool2d(img, F::AdaptiveMaxPool2dFuncOptions(2)));
  show("adaptive_max_pool1d", F::adaptive_max_pool1d(seq, F::AdaptiveMaxPool1dFuncOptions(3)));

  // ── normalisation ─────────────────────────────────────────────────────
  auto mean = torch::zeros({3});
  auto var = torch::ones({3});
  show("batch_norm(train)",
       F::batch_norm(img, mean, var, F::BatchNormFuncOptions().training(true).momentum(0.5)));
  show("running mean after", mean);
  show("batch_norm(eval)",
       F::batch_norm(img, mean, var, F::BatchNormFuncOptions().weight(torch::ones({3}) * 2)));
  show("layer_norm", F::layer_norm(x, F::LayerNormFuncOptions({5}).eps(1e-3)));
  show("group_norm", F::group_norm(img, F::GroupNormFuncOptions(3).bias(torch::ones({3}))));
  show("normalize", F::normalize(x));
  show("normalize(p=1, dim=0)", F::normalize(x, F::NormalizeFuncOptions().p(1).dim(0)));

  // ── embedding, distances, padding, interpolation, linear ─────────────
  auto table = torch::randn({6, 3});
  auto ids = torch::tensor({{1, 0, 5}, {2, 2, 4}}, torch::kLong);
  show("embedding", F::embedding(ids, table));
  show("embedding(padding_idx)",
       F::embedding(ids, table, F::EmbeddingFuncOptions().padding_idx(2)));
  show("one_hot", F::one_hot(ids, 6));
  auto y = torch::randn({4, 5});
  show("cosine_similarity", F::cosine_similarity(x, y, F::CosineSimilarityFuncOptions().dim(1)));
  show("pairwise_distance", F::pairwise_distance(x, y, F::PairwiseDistanceFuncOptions().p(1)));
  show("pad(constant)", F::pad(img, F::PadFuncOptions({1, 2}).value(0.5)));
  show("pad(reflect)", F::pad(img, F::PadFuncOptions({1, 1, 2, 0}).mode(torch::kReflect)));
  show("pad(replicate)", F::pad(seq, F::PadFuncOptions({2, 3}).mode(torch::kReplicate)));
  show("pad(circular)", F::pad(img, F::PadFuncOptions({1, 1, 1, 1}).mode(torch::kCircular)));
  show("interpolate(nearest)",
       F::interpolate(img, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2, 2})));
  show("interpolate(bilinear)", F::interpolate(img, F::InterpolateFuncOptions()
                                                        .size(std::vector<int64_t>{5, 9})
                                                        .mode(torch::kBilinear)
                                                        .align_corners(true)));
  show("interpolate(linear)", F::interpolate(seq, F::InterpolateFuncOptions()
                                                      .scale_factor(std::vector<double>{1.5})
                                                      .mode(torch::kLinear)
                                                      .align_corners(false)));
  show("linear", F::linear(x, torch::randn({2, 5}), torch::randn({2})));

  // ── losses ────────────────────────────────────────────────────────────
  auto target = torch::randn({4, 5});
  auto classes = torch::tensor({0, 4, 2, 2}, torch::kLong);
  auto probs = torch::sigmoid(x);
  auto bits = (target > 0).to(torch::kFloat);
  show("mse_loss", F::mse_loss(x, target));
  show("mse_loss(sum)", F::mse_loss(x, target, torch::kSum));
  show("l1_loss(none)", F::l1_loss(x, target, F::L1LossFuncOptions(torch::kNone)));
  show("smooth_l1_loss", F::smooth_l1_loss(x, target));
  show("smooth_l1_loss(beta arg)", F::smooth_l1_loss(x, target, F::SmoothL1LossFuncOptions(), 0.5));
  show("huber_loss", F::huber_loss(x, target, F::HuberLossFuncOptions().delta(0.5)));
  show("cross_entropy", F::cross_entropy(x, classes));
  show("cross_entropy(options)", F::cross_entropy(x, classes,
                                                  F::CrossEntropyFuncOptions()
                                                      .reduction(torch::kSum)
                                                      .label_smoothing(0.1)
                                                      .ignore_index(2)));
  show("nll_loss", F::nll_loss(F::log_softmax(x, 1), classes,
                               F::NLLLossFuncOptions().weight(torch::arange(1., 6.))));
  show("binary_cross_entropy", F::binary_cross_entropy(probs, bits));
  show("bce(weight, sum)", F::binary_cross_entropy(probs, bits,
                                                   F::BinaryCrossEntropyFuncOptions()
                                                       .weight(torch::ones({5}) * 0.5)
                                                       .reduction(torch::kSum)));
  show("bce_with_logits",
       F::binary_cross_entropy_with_logits(
           x, bits, F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(torch::ones({5}) * 2)));
  show("kl_div(batchmean)", F::kl_div(F::log_softmax(x, 1), F::softmax(target, 1),
                                      F::KLDivFuncOptions(torch::kBatchMean)));
  show("kl_div(log_target)",
       F::kl_div(F::log_softmax(x, 1), F::log_softmax(target, 1),
                 F::KLDivFuncOptions().log_target(true).reduction(torch::kSum)));
  auto sign = torch::tensor({1., -1., 1., -1.});
  show("cosine_embedding_loss",
       F::cosine_embedding_loss(x, target, sign, F::CosineEmbeddingLossFuncOptions().margin(0.2)));
  show("margin_ranking_loss",
       F::margin_ranking_loss(x.select(1, 0), target.select(1, 0), sign,
                              F::MarginRankingLossFuncOptions().margin(0.1)));
  show(
      "triplet_margin_loss",
      F::triplet_margin_loss(x, target, y, F::TripletMarginLossFuncOptions().margin(2).swap(true)));
  return 0;
}
