// Linear layers and shape adapters: Linear, Bilinear, Identity, Flatten, Unflatten
// (torch.nn.Linear, ...).
//   nn::Linear fc(64, 128, {.bias = true});  Tensor y = fc(x);  fc->weight;  // (128, 64)
#pragma once

#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

struct LinearOptions {
  bool bias = true;
};

/// y = x Wᵀ + b: weight (out, in) ~ kaiming_uniform(a = √5), bias ~ U(±1/√in).
class LinearImpl : public Module {
 public:
  LinearImpl(int64_t in_features, int64_t out_features, LinearOptions options = {});
  /// Redraws weight and bias with PyTorch's default initialisation.
  void reset_parameters();
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;

  int64_t in_features, out_features;
  Tensor weight, bias;  // bias undefined when options.bias is false
};

class Linear : public ModuleHolder<LinearImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  Linear(int64_t in_features, int64_t out_features, LinearOptions options = {})
      : ModuleHolder(std::make_shared<LinearImpl>(in_features, out_features, options)) {}
};

struct BilinearOptions {
  bool bias = true;
};

/// y_o = x1ᵀ W_o x2 + b_o: weight (out, in1, in2) and bias (out) ~ U(±1/√in1).
/// input1 (*, in1), input2 (*, in2) -> (*, out).
class BilinearImpl : public Module {
 public:
  BilinearImpl(int64_t in1_features, int64_t in2_features, int64_t out_features,
               BilinearOptions options = {});
  void reset_parameters();
  Tensor forward(const Tensor& input1, const Tensor& input2);
  std::string extra_repr() const override;

  int64_t in1_features, in2_features, out_features;
  Tensor weight, bias;
};

class Bilinear : public ModuleHolder<BilinearImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  Bilinear(int64_t in1_features, int64_t in2_features, int64_t out_features,
           BilinearOptions options = {})
      : ModuleHolder(std::make_shared<BilinearImpl>(in1_features, in2_features, out_features,
                                                    options)) {}
};

/// Returns its input.
class IdentityImpl : public Module {
 public:
  Tensor forward(const Tensor& input) { return input; }
};

class Identity : public ModuleHolder<IdentityImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  Identity() : ModuleHolder(std::make_shared<IdentityImpl>()) {}
};

struct FlattenOptions {
  int64_t start_dim = 1;
  int64_t end_dim = -1;
};

/// input.flatten(start_dim, end_dim); keeps the batch dim by default.
class FlattenImpl : public Module {
 public:
  explicit FlattenImpl(FlattenOptions options = {}) : options(options) {}
  Tensor forward(const Tensor& input) { return input.flatten(options.start_dim, options.end_dim); }
  std::string extra_repr() const override;
  FlattenOptions options;
};

class Flatten : public ModuleHolder<FlattenImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  Flatten(FlattenOptions options = {}) : ModuleHolder(std::make_shared<FlattenImpl>(options)) {}
};

/// input.unflatten(dim, sizes).
class UnflattenImpl : public Module {
 public:
  UnflattenImpl(int64_t dim, std::vector<int64_t> sizes) : dim(dim), sizes(std::move(sizes)) {}
  Tensor forward(const Tensor& input) { return input.unflatten(dim, sizes); }
  std::string extra_repr() const override;
  int64_t dim;
  std::vector<int64_t> sizes;
};

class Unflatten : public ModuleHolder<UnflattenImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  Unflatten(int64_t dim, std::vector<int64_t> sizes)
      : ModuleHolder(std::make_shared<UnflattenImpl>(dim, std::move(sizes))) {}
};

}  // namespace ember::nn
