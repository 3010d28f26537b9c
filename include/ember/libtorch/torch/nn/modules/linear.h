// torch::nn::Linear, Bilinear, Identity, Flatten and Unflatten over ember's layers, built from
// LibTorch's options or its positional arguments:
//   torch::nn::Linear(4, 5)   torch::nn::Linear(torch::nn::LinearOptions(4, 5).bias(false))
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/nn/layers/linear.h"
#include "torch/nn/modules/utils.h"
#include "torch/nn/options/linear.h"

namespace torch::nn {

EMBER_TORCH_PLAIN_LAYER(Identity);

class LinearImpl : public ember::nn::LinearImpl {
 public:
  LinearImpl(int64_t in_features, int64_t out_features)
      : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions& options_)
      : ember::nn::LinearImpl(options_.in_features(), options_.out_features(),
                              {.bias = options_.bias()}),
        options(options_) {}
  EMBER_TORCH_LAYER_NAME(Linear)
  std::string extra_repr() const override;
  LinearOptions options;
};
TORCH_MODULE(Linear);

class BilinearImpl : public ember::nn::BilinearImpl {
 public:
  BilinearImpl(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : BilinearImpl(BilinearOptions(in1_features, in2_features, out_features)) {}
  explicit BilinearImpl(const BilinearOptions& options_)
      : ember::nn::BilinearImpl(options_.in1_features(), options_.in2_features(),
                                options_.out_features(), {.bias = options_.bias()}),
        options(options_) {}
  EMBER_TORCH_LAYER_NAME(Bilinear)
  std::string extra_repr() const override;
  BilinearOptions options;
};
TORCH_MODULE(Bilinear);

class FlattenImpl : public ember::nn::FlattenImpl {
 public:
  explicit FlattenImpl(const FlattenOptions& options_ = {})
      : ember::nn::FlattenImpl({.start_dim = options_.start_dim(), .end_dim = options_.end_dim()}),
        options(options_) {}
  EMBER_TORCH_LAYER_NAME(Flatten)
  std::string extra_repr() const override;
  FlattenOptions options;
};
TORCH_MODULE(Flatten);

class UnflattenImpl : public ember::nn::UnflattenImpl {
 public:
  UnflattenImpl(int64_t dim, std::vector<int64_t> sizes)
      : UnflattenImpl(UnflattenOptions(dim, std::move(sizes))) {}
  UnflattenImpl(std::string dimname, UnflattenOptions::namedshape_t namedshape)
      : UnflattenImpl(UnflattenOptions(std::move(dimname), std::move(namedshape))) {}
  /// Throws for named dims (ember has no named tensors).
  explicit UnflattenImpl(UnflattenOptions options_);
  EMBER_TORCH_LAYER_NAME(Unflatten)
  std::string extra_repr() const override;
  UnflattenOptions options;
};
TORCH_MODULE(Unflatten);

}  // namespace torch::nn
