// Activation layers (torch.nn.ReLU, GELU, PReLU, Softmax, ...): modules over the elementwise ops,
// with PyTorch's options, defaults and repr.
//   nn::Sequential(nn::Linear(4, 8), nn::GELU({.approximate = "tanh"}), nn::Softmax(-1));
#pragma once

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "ember/creation.h"
#include "ember/math.h"
#include "ember/nn/functional/layers.h"
#include "ember/nn/module.h"

namespace ember::nn {

namespace detail {
std::string python_float(double v);  // Python's repr of a float: 0.1, 1.0, 1e-05
std::string python_tuple(const std::vector<int64_t>& v);  // (3, 3), (3,)
std::string python_tuple(const std::vector<double>& v);   // (2.0, 1.5)
inline const char* python_bool(bool b) { return b ? "True" : "False"; }
}  // namespace detail
/// ReLU: relu elementwise.
class ReLUImpl : public Module {
 public:
  Tensor forward(const Tensor& input) { return relu(input); }
};
class ReLU : public ModuleHolder<ReLUImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  ReLU() : ModuleHolder(std::make_shared<ReLUImpl>()) {}
};
/// ReLU6: relu6 elementwise.
class ReLU6Impl : public Module {
 public:
  Tensor forward(const Tensor& input) { return relu6(input); }
};
class ReLU6 : public ModuleHolder<ReLU6Impl> {
 public:
  using ModuleHolder::ModuleHolder;
  ReLU6() : ModuleHolder(std::make_shared<ReLU6Impl>()) {}
};
/// SiLU: silu elementwise.
class SiLUImpl : public Module {
 public:
  Tensor forward(const Tensor& input) { return silu(input); }
};
class SiLU : public ModuleHolder<SiLUImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  SiLU() : ModuleHolder(std::make_shared<SiLUImpl>()) {}
};
/// Mish: mish elementwise.
class MishImpl : public Module {
 public:
  Tensor forward(const Tensor& input) { return mish(input); }
};
class Mish : public ModuleHolder<MishImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  Mish() : ModuleHolder(std::make_shared<MishImpl>()) {}
};
/// Tanh: tanh elementwise.
class TanhImpl : public Module {
 public:
  Tensor forward(const Tensor& input) { return tanh(input); }
};
class Tanh : public ModuleHolder<TanhImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  Tanh() : ModuleHolder(std::make_shared<TanhImpl>()) {}
};
/// Sigmoid: sigmoid elementwise.
class SigmoidImpl : public Module {
 public:
  Tensor forward(const Tensor& input) { return sigmoid(input); }
};
class Sigmoid : public ModuleHolder<SigmoidImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  Sigmoid() : ModuleHolder(std::make_shared<SigmoidImpl>()) {}
};
/// Hardswish: hardswish elementwise.
class HardswishImpl : public Module {
 public:
  Tensor forward(const Tensor& input) { return hardswish(input); }
};
class Hardswish : public ModuleHolder<HardswishImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  Hardswish() : ModuleHolder(std::make_shared<HardswishImpl>()) {}
};
struct LeakyReLUOptions {
  double negative_slope = 0.01;
  bool inplace = false;
};
class LeakyReLUImpl : public Module {
 public:
  explicit LeakyReLUImpl(LeakyReLUOptions options = {}) : options(options) {}
  Tensor forward(const Tensor& input) { return leaky_relu(input, options.negative_slope); }
  std::string extra_repr() const override {
    return "negative_slope=" + detail::python_float(options.negative_slope);
  }
  LeakyReLUOptions options;
};
class LeakyReLU : public ModuleHolder<LeakyReLUImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  LeakyReLU(LeakyReLUOptions options = {})
      : ModuleHolder(std::make_shared<LeakyReLUImpl>(options)) {}
};

struct ELUOptions {
  double alpha = 1.0;
  bool inplace = false;
};
class ELUImpl : public Module {
 public:
  explicit ELUImpl(ELUOptions options = {}) : options(options) {}
  Tensor forward(const Tensor& input) { return elu(input, options.alpha); }
  std::string extra_repr() const override { return "alpha=" + detail::python_float(options.alpha); }
  ELUOptions options;
};
class ELU : public ModuleHolder<ELUImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  ELU(ELUOptions options = {}) : ModuleHolder(std::make_shared<ELUImpl>(options)) {}
};

struct GELUOptions {
  std::string approximate = "none";  // or "tanh"
};
class GELUImpl : public Module {
 public:
  explicit GELUImpl(GELUOptions options = {}) : options(std::move(options)) {}
  Tensor forward(const Tensor& input) { return gelu(input, {.approximate = options.approximate}); }
  std::string extra_repr() const override { return "approximate='" + options.approximate + "'"; }
  GELUOptions options;
};
class GELU : public ModuleHolder<GELUImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  GELU(GELUOptions options = {}) : ModuleHolder(std::make_shared<GELUImpl>(std::move(options))) {}
};

struct SoftplusOptions {
  double beta = 1.0;
  double threshold = 20.0;
};
class SoftplusImpl : public Module {
 public:
  explicit SoftplusImpl(SoftplusOptions options = {}) : options(options) {}
  Tensor forward(const Tensor& input) {
    return softplus(input, options.beta, options.threshold);
  }
  std::string extra_repr() const override {
    return "beta=" + detail::python_float(options.beta) +
           ", threshold=" + detail::python_float(options.threshold);
  }
  SoftplusOptions options;
};
class Softplus : public ModuleHolder<SoftplusImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  Softplus(SoftplusOptions options = {}) : ModuleHolder(std::make_shared<SoftplusImpl>(options)) {}
};

/// PReLU: x where x > 0, else a learned slope times x; one slope, or one per channel.
struct PReLUOptions {
  int64_t num_parameters = 1;
  double init = 0.25;
};
class PReLUImpl : public Module {
 public:
  explicit PReLUImpl(PReLUOptions options = {})
      : options(options),
        weight(register_parameter("weight", full({options.num_parameters}, options.init))) {}
  Tensor forward(const Tensor& input) { return functional::prelu(input, weight); }
  std::string extra_repr() const override {
    return "num_parameters=" + std::to_string(options.num_parameters);
  }
  PReLUOptions options;
  Tensor weight;
};
class PReLU : public ModuleHolder<PReLUImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  PReLU(PReLUOptions options = {}) : ModuleHolder(std::make_shared<PReLUImpl>(options)) {}
};

/// softmax / log_softmax along `dim` (PyTorch's dim=None legacy choice is not offered).
class SoftmaxImpl : public Module {
 public:
  explicit SoftmaxImpl(int64_t dim) : dim(dim) {}
  Tensor forward(const Tensor& input) { return input.softmax(dim); }
  std::string extra_repr() const override { return "dim=" + std::to_string(dim); }
  int64_t dim;
};
class Softmax : public ModuleHolder<SoftmaxImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  Softmax(int64_t dim) : ModuleHolder(std::make_shared<SoftmaxImpl>(dim)) {}  // NOLINT
};

class LogSoftmaxImpl : public Module {
 public:
  explicit LogSoftmaxImpl(int64_t dim) : dim(dim) {}
  Tensor forward(const Tensor& input) { return input.log_softmax(dim); }
  std::string extra_repr() const override { return "dim=" + std::to_string(dim); }
  int64_t dim;
};
class LogSoftmax : public ModuleHolder<LogSoftmaxImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  LogSoftmax(int64_t dim) : ModuleHolder(std::make_shared<LogSoftmaxImpl>(dim)) {}  // NOLINT
};

}  // namespace ember::nn
