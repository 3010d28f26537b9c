// torch::nn's layers and containers printed as LibTorch prints them: the "torch::nn::" names and
// each layer's options, containers with their children indented.
#include <torch/torch.h>

#include <iostream>
#include <vector>

namespace nn = torch::nn;

int main() {
  nn::Sequential layers(
      nn::Linear(4, 5), nn::Linear(nn::LinearOptions(4, 5).bias(false)), nn::Bilinear(2, 3, 4),
      nn::Identity(), nn::Flatten(), nn::Unflatten(1, std::vector<int64_t>{2, 2}),
      nn::Conv1d(1, 2, 3), nn::Conv2d(nn::Conv2dOptions(1, 10, 5).stride(2).padding(1).bias(false)),
      nn::Conv2d(nn::Conv2dOptions(1, 10, {3, 5})
                     .padding(torch::kSame)
                     .dilation(2)
                     .padding_mode(torch::kReflect)),
      nn::Conv2d(nn::Conv2dOptions(4, 4, 1).padding(torch::kValid).groups(2)),
      nn::ConvTranspose2d(nn::ConvTranspose2dOptions(2, 3, 3).stride(2).output_padding(1)),
      nn::BatchNorm1d(4),
      nn::BatchNorm2d(nn::BatchNorm2dOptions(3).momentum(c10::nullopt).affine(false)),
      nn::LayerNorm(nn::LayerNormOptions({4, 5}).eps(1e-6)), nn::GroupNorm(2, 4), nn::Dropout(0.3),
      nn::Dropout2d(nn::Dropout2dOptions().p(0.2).inplace(true)),
      nn::Embedding(nn::EmbeddingOptions(10, 3).padding_idx(0).max_norm(2.0)),
      nn::Embedding(nn::EmbeddingOptions(5, 2).norm_type(1).scale_grad_by_freq(true)),
      nn::MaxPool1d(2), nn::MaxPool2d(nn::MaxPool2dOptions({2, 3}).stride(1).ceil_mode(true)),
      nn::AvgPool2d(
          nn::AvgPool2dOptions(3).stride(2).padding(1).count_include_pad(false).divisor_override(
              2)),
      nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({4, c10::nullopt})),
      nn::AdaptiveAvgPool2d(1));
  std::cout << layers << std::endl;

  nn::Sequential activations(
      nn::ReLU(), nn::ReLU(true), nn::ReLU6(), nn::ReLU6(nn::ReLU6Options(true)),
      nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)),
      nn::LeakyReLU(nn::LeakyReLUOptions().inplace(true)), nn::ELU(),
      nn::ELU(nn::ELUOptions().alpha(0.5).inplace(true)), nn::GELU(),
      nn::GELU(nn::GELUOptions().approximate("tanh")), nn::SiLU(), nn::Mish(), nn::Sigmoid(),
      nn::Tanh(), nn::Softmax(1), nn::LogSoftmax(nn::LogSoftmaxOptions(-1)),
      nn::Softplus(nn::SoftplusOptions().beta(2)),
      nn::Upsample(
          nn::UpsampleOptions().scale_factor(std::vector<double>{2}).mode(torch::kNearest)),
      nn::Upsample(nn::UpsampleOptions()
                       .size(std::vector<int64_t>{4, 4})
                       .mode(torch::kBilinear)
                       .align_corners(false)),
      nn::Functional(torch::relu));
  std::cout << activations << std::endl;

  nn::Sequential losses(nn::MSELoss(), nn::L1Loss(), nn::NLLLoss(), nn::CrossEntropyLoss(),
                        nn::BCELoss(), nn::BCEWithLogitsLoss(), nn::KLDivLoss(),
                        nn::MarginRankingLoss(), nn::CosineEmbeddingLoss(),
                        nn::TripletMarginLoss(nn::TripletMarginLossOptions().margin(0.5)));
  std::cout << losses << std::endl;

  nn::Sequential named({{"conv", nn::Conv2d(1, 2, 3)}, {"act", nn::ReLU()}});
  std::cout << *named << std::endl;
  nn::ModuleList list(nn::Linear(1, 2), nn::Tanh());
  list->push_back(named);
  std::cout << list << std::endl;
  std::cout << nn::Linear(3, 4) << " " << *nn::Dropout() << std::endl;
  return 0;
}
