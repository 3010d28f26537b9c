// The layer's own checks, which LibTorch programs (whose goldens come from LibTorch, where these
// run) cannot show: what ember refuses with a message rather than ignore (torch::nn options,
// at::globalContext()'s TF32 switches), empty handles and containers, type-erased calls with
// wrong arguments, and the enum spellings.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

#include "test_support.h"

namespace {

namespace nn = torch::nn;
namespace F = torch::nn::functional;

TEST(LibtorchNnRefusals, AttentionOptionsEmberLacks) {
  EXPECT_ERROR(nn::MultiheadAttention(nn::MultiheadAttentionOptions(8, 2).kdim(4)),
               "kdim and vdim other than embed_dim are not supported (embed_dim 8, kdim 4");
  EXPECT_ERROR(nn::MultiheadAttention(nn::MultiheadAttentionOptions(8, 2).add_bias_kv(true)),
               "add_bias_kv(true) is not supported");
  EXPECT_ERROR(nn::MultiheadAttention(nn::MultiheadAttentionOptions(8, 2).add_zero_attn(true)),
               "add_zero_attn(true) is not supported");
}

TEST(LibtorchNnRefusals, TransformerActivationAndNorm) {
  auto options = nn::TransformerEncoderLayerOptions(8, 2).activation(
      std::function<torch::Tensor(const torch::Tensor&)>(
          [](const torch::Tensor& x) { return x.tanh(); }));
  EXPECT_ERROR(nn::TransformerEncoderLayer(options), "a function as activation is not supported");
  nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(4));
  EXPECT_ERROR(nn::TransformerEncoder(
                   nn::TransformerEncoderOptions(layer, 1).norm(nn::AnyModule(nn::Linear(8, 8)))),
               "the norm must be a LayerNorm");
  EXPECT_ERROR(nn::TransformerEncoder(nn::TransformerEncoderLayer(nullptr), 2),
               "encoder_layer is empty");
}

TEST(LibtorchNnRefusals, OptionsEmberLacks) {
  EXPECT_ERROR(nn::Unflatten(nn::UnflattenOptions("features", {{"h", 2}, {"w", 2}})),
               "named dimensions (dimname 'features') are not supported");
  EXPECT_ERROR(
      nn::ConvTranspose2d(nn::ConvTranspose2dOptions(2, 2, 3).padding_mode(torch::kReflect)),
      "Only \"zeros\" padding mode is supported for ConvTranspose2d, got kReflect");
  EXPECT_ERROR(
      F::interpolate(
          torch::ones({1, 1, 2, 2}),
          F::InterpolateFuncOptions().scale_factor(std::vector<double>{2}).antialias(true)),
      "antialias(true) is not supported");
  EXPECT_ERROR(
      F::pad(torch::ones({1, 1, 3}), F::PadFuncOptions({1, 1}).mode(torch::kReflect).value(2)),
      "Padding mode \"kReflect\" doesn't take in value argument");
  EXPECT_ERROR(nn::Conv2d(nn::Conv2dOptions(1, 1, std::vector<int64_t>{1, 2, 3})),
               "expected 2 values, but got 3");
}

TEST(LibtorchNnRefusals, EmbeddingWithGivenWeight) {
  torch::manual_seed(3);
  auto expected = torch::randn({4});
  torch::manual_seed(3);
  nn::Embedding given(nn::EmbeddingOptions(3, 2)._weight(torch::arange(6.).view({3, 2})));
  // No number was drawn for the weight, which holds the given values.
  EXPECT_TRUE(torch::randn({4}).equal(expected));
  EXPECT_EQ(given->weight.sum().item<float>(), 15.f);
  EXPECT_ERROR(nn::Embedding(nn::EmbeddingOptions(3, 2)._weight(torch::ones({2, 2}))),
               "Shape of _weight does not match num_embeddings and embedding_dim: expected [3, 2]");
  EXPECT_ERROR(nn::Embedding::from_pretrained(torch::ones({4})),
               "Embeddings parameter is expected to be 2-dimensional, got 1 dims");
  EXPECT_TRUE(nn::Embedding::from_pretrained(torch::ones({2, 2}),
                                             nn::EmbeddingFromPretrainedOptions().freeze(false))
                  ->weight.requires_grad());
}

TEST(LibtorchNnRefusals, EmptyHandlesAndContainers) {
  nn::Linear empty{nullptr};
  EXPECT_TRUE(empty.is_empty());
  EXPECT_ERROR(empty.ptr(), "Accessing empty ModuleHolder");
  EXPECT_ERROR(empty.get(), "Accessing empty ModuleHolder");
  nn::Sequential sequential;
  EXPECT_ERROR(sequential->forward(torch::ones({1})),
               "Cannot call forward() on an empty Sequential");
  sequential->push_back(nn::ReLU());
  EXPECT_ERROR(sequential->ptr(3), "Index out of range");
  EXPECT_ERROR(sequential->ptr<nn::LinearImpl>(0), "to type torch::nn::LinearImpl");
  EXPECT_ERROR(sequential->forward<int>(torch::ones({1})),
               "The type of the return value is ember::Tensor, but you asked for type int");
  nn::ModuleList list{nn::ReLU()};
  EXPECT_ERROR(list->ptr(1), "Index out of range (the list has 1 modules, got 1)");
  EXPECT_ERROR(list->at<nn::LinearImpl>(0), "module 0 is a torch::nn::ReLU");
  EXPECT_ERROR(nn::AnyModule().forward(torch::ones({1})), "on an empty AnyModule");
}

TEST(LibtorchNnRefusals, AnyModuleArguments) {
  nn::AnyModule linear(nn::Linear(2, 2));
  EXPECT_ERROR(linear.forward(torch::ones({2}), torch::ones({2})),
               "torch::nn::Linear's forward() method expects 1 argument(s), but received 2");
  EXPECT_ERROR(
      linear.forward(2.0),
      "Expected argument #0 to be of type ember::Tensor, but received value of type double");
  nn::AnyModule attention(nn::MultiheadAttention(4, 2));
  auto q = torch::ones({3, 1, 4});
  EXPECT_ERROR(attention.forward(q), "expects 7 argument(s), but received 1");
  auto [out, weights] = attention.forward<std::tuple<torch::Tensor, torch::Tensor>>(q, q, q);
  EXPECT_EQ(out.sizes(), q.sizes());
}

TEST(LibtorchNnRefusals, EnumSpellings) {
  EXPECT_EQ(torch::detail::enum_spelling(nn::KLDivLossOptions::reduction_t(torch::kBatchMean)),
            "batchmean");
  EXPECT_EQ(torch::detail::enum_spelling(F::InterpolateFuncOptions::mode_t(torch::kNearestExact)),
            "nearest-exact");
  EXPECT_EQ(torch::enumtype::get_enum_name(nn::Conv2dOptions::padding_mode_t(torch::kCircular)),
            "kCircular");
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain(torch::kConvTranspose2D), 1.0);
}

TEST(LibtorchContext, AcceptsOnlyFullFloat32) {
  at::globalContext().setAllowTF32CuBLAS(false);
  at::globalContext().setAllowTF32CuDNN(false);
  at::globalContext().setFloat32MatmulPrecision("highest");
  EXPECT_FALSE(at::globalContext().allowTF32CuBLAS());
  EXPECT_ERROR(at::globalContext().setAllowTF32CuBLAS(true),
               "[at::globalContext().setAllowTF32CuBLAS] ember has no TF32 path");
  EXPECT_ERROR(at::globalContext().setAllowTF32CuDNN(true), "only false is accepted");
  EXPECT_ERROR(at::globalContext().setFloat32MatmulPrecision("medium"),
               "only \"highest\" is accepted; got \"medium\"");
  EXPECT_ERROR(at::globalContext().setAllowFP16ReductionCuBLAS(true),
               "float16 matrix products accumulate in float32");
  EXPECT_ERROR(at::globalContext().setBenchmarkCuDNN(true), "does not autotune");
  at::globalContext().setBenchmarkCuDNN(false);
  EXPECT_EQ(torch::cuda::cudnn_is_available(), ember::cuda::is_available());
  EXPECT_EQ(std::string(TORCH_VERSION), "1.13.1");
}

}  // namespace
