// BatchNorm/InstanceNorm/LayerNorm/GroupNorm/RMSNorm modules:
// torch/nn/modules/{batchnorm,instancenorm,normalization}.py (1.13; RMSNorm as 2.4) over
// nn::functional.
#include "ember/nn/layers/normalization.h"

#include <sstream>

#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/nn/functional.h"
#include "ember/nn/layers/activation.h"
#include "nn/batch_norm_sync.h"

namespace ember::nn {

namespace detail {
namespace {
SyncBatchNormFn installed_sync_batch_norm = nullptr;
}
void install_sync_batch_norm(SyncBatchNormFn fn) { installed_sync_batch_norm = fn; }
SyncBatchNormFn sync_batch_norm() { return installed_sync_batch_norm; }
}  // namespace detail

namespace {
std::string shape_tuple(const std::vector<int64_t>& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

// PyTorch's _NormBase state, shared by BatchNorm and InstanceNorm: weight (ones) and bias
// (zeros) when affine, running_mean/running_var and num_batches_tracked when tracking.
void register_norm_state(Module& m, int64_t C, bool affine, bool track, Tensor& weight,
                         Tensor& bias, Tensor& running_mean, Tensor& running_var,
                         Tensor& num_batches_tracked) {
  weight = m.register_parameter("weight", affine ? ones({C}) : Tensor());
  bias = m.register_parameter("bias", affine ? zeros({C}) : Tensor());
  if (!track) return;
  running_mean = m.register_buffer("running_mean", zeros({C}));
  running_var = m.register_buffer("running_var", ones({C}));
  num_batches_tracked = m.register_buffer("num_batches_tracked", zeros({}, {.dtype = kInt64}));
}

void reset_stats(Tensor& running_mean, Tensor& running_var, Tensor& num_batches_tracked) {
  if (!running_mean.defined()) return;
  NoGradGuard g;
  running_mean.zero_();
  running_var.fill_(1);
  num_batches_tracked.zero_();
}

void reset_affine(Tensor& weight, Tensor& bias) {
  if (!weight.defined()) return;
  NoGradGuard g;
  weight.fill_(1);
  bias.zero_();
}

std::string norm_repr(int64_t num_features, double eps, const std::string& momentum, bool affine,
                      bool track_running_stats) {
  std::ostringstream os;
  os << num_features << ", eps=" << detail::python_float(eps) << ", momentum=" << momentum
     << ", affine=" << detail::python_bool(affine)
     << ", track_running_stats=" << detail::python_bool(track_running_stats);
  return os.str();
}
}  // namespace

BatchNormImplBase::BatchNormImplBase(int64_t num_features, BatchNormOptions options,
                                     int64_t min_dim, int64_t max_dim)
    : num_features(num_features), options(options), min_dim_(min_dim), max_dim_(max_dim) {
  register_norm_state(*this, num_features, options.affine, options.track_running_stats, weight,
                      bias, running_mean, running_var, num_batches_tracked);
}

void BatchNormImplBase::reset_running_stats() {
  reset_stats(running_mean, running_var, num_batches_tracked);
}

void BatchNormImplBase::reset_parameters() {
  reset_running_stats();
  reset_affine(weight, bias);
}

Tensor BatchNormImplBase::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() >= min_dim_ && input.dim() <= max_dim_, name().c_str(), "expected ",
              min_dim_ == max_dim_ ? std::to_string(min_dim_) + "D"
                                   : std::to_string(min_dim_) + "D or " + std::to_string(max_dim_) + "D",
              " input (got ", input.dim(), "D input)");
  // As PyTorch: with momentum unset the factor is 1 / batches seen (a cumulative average).
  std::optional<double> factor = options.momentum.value_or(0.0);
  if (is_training() && options.track_running_stats) {
    {
      NoGradGuard g;
      num_batches_tracked.add_(1);
    }
    if (!options.momentum) factor = 1.0 / double(num_batches_tracked.item<int64_t>());
  }
  const bool use_batch_stats = is_training() || !running_mean.defined();
  const bool pass_stats = !is_training() || options.track_running_stats;
  if (sync_group_ && use_batch_stats)
    return detail::sync_batch_norm()(input, pass_stats ? running_mean : Tensor(),
                                     pass_stats ? running_var : Tensor(),
                                     {.weight = weight, .bias = bias, .training = true,
                                      .momentum = factor, .eps = options.eps},
                                     *sync_group_);
  return functional::batch_norm(input, pass_stats ? running_mean : Tensor(),
                                pass_stats ? running_var : Tensor(),
                                {.weight = weight, .bias = bias, .training = use_batch_stats,
                                 .momentum = factor, .eps = options.eps});
}

std::string BatchNormImplBase::name() const {
  return sync_group_ ? "SyncBatchNorm" : Module::name();
}

std::string BatchNormImplBase::extra_repr() const {
  return norm_repr(num_features, options.eps,
                   options.momentum ? detail::python_float(*options.momentum) : "None",
                   options.affine, options.track_running_stats);
}

InstanceNormImplBase::InstanceNormImplBase(int64_t num_features, InstanceNormOptions options,
                                           int64_t spatial_dims)
    : num_features(num_features), options(options), spatial_dims_(spatial_dims) {
  register_norm_state(*this, num_features, options.affine, options.track_running_stats, weight,
                      bias, running_mean, running_var, num_batches_tracked);
}

void InstanceNormImplBase::reset_running_stats() {
  reset_stats(running_mean, running_var, num_batches_tracked);
}

void InstanceNormImplBase::reset_parameters() {
  reset_running_stats();
  reset_affine(weight, bias);
}

// torch/nn/modules/instancenorm.py (1.13): the input's statistics in training or without running
// statistics; num_batches_tracked is kept in the state dict but, as there, never counted.
Tensor InstanceNormImplBase::forward(const Tensor& input) {
  const int64_t unbatched = spatial_dims_ + 1;
  EMBER_CHECK(input.dim() == unbatched || input.dim() == unbatched + 1, name().c_str(), "expected ",
              unbatched, "D or ", unbatched + 1, "D input (got ", input.dim(), "D input)");
  const Tensor batched = input.dim() == unbatched ? input.unsqueeze(0) : input;
  Tensor out = functional::instance_norm(
      batched, {.running_mean = running_mean,
                .running_var = running_var,
                .weight = weight,
                .bias = bias,
                .use_input_stats = is_training() || !options.track_running_stats,
                .momentum = options.momentum,
                .eps = options.eps});
  return input.dim() == unbatched ? out.squeeze(0) : out;
}

std::string InstanceNormImplBase::extra_repr() const {
  return norm_repr(num_features, options.eps, detail::python_float(options.momentum),
                   options.affine, options.track_running_stats);
}

LayerNormImpl::LayerNormImpl(std::vector<int64_t> shape, LayerNormOptions options)
    : normalized_shape(std::move(shape)), options(options) {
  const bool affine = options.elementwise_affine;
  weight = register_parameter("weight", affine ? ones(normalized_shape) : Tensor());
  bias = register_parameter("bias", affine && options.bias ? zeros(normalized_shape) : Tensor());
}

Tensor LayerNormImpl::forward(const Tensor& input) {
  return functional::layer_norm(input, normalized_shape,
                                {.weight = weight, .bias = bias, .eps = options.eps});
}

std::string LayerNormImpl::extra_repr() const {
  return shape_tuple(normalized_shape) + ", eps=" + detail::python_float(options.eps) +
         ", elementwise_affine=" + detail::python_bool(options.elementwise_affine);
}

GroupNormImpl::GroupNormImpl(int64_t num_groups, int64_t num_channels, GroupNormOptions options)
    : num_groups(num_groups), num_channels(num_channels), options(options) {
  EMBER_CHECK(num_groups > 0 && num_channels % num_groups == 0, "GroupNorm",
              "num_channels must be divisible by num_groups, got ", num_channels, " and ",
              num_groups);
  weight = register_parameter("weight", options.affine ? ones({num_channels}) : Tensor());
  bias = register_parameter("bias", options.affine ? zeros({num_channels}) : Tensor());
}

Tensor GroupNormImpl::forward(const Tensor& input) {
  return functional::group_norm(input, num_groups,
                                {.weight = weight, .bias = bias, .eps = options.eps});
}

std::string GroupNormImpl::extra_repr() const {
  return std::to_string(num_groups) + ", " + std::to_string(num_channels) +
         ", eps=" + detail::python_float(options.eps) +
         ", affine=" + detail::python_bool(options.affine);
}

RMSNormImpl::RMSNormImpl(std::vector<int64_t> shape, RMSNormOptions options)
    : normalized_shape(std::move(shape)), options(options) {
  weight = register_parameter("weight",
                              options.elementwise_affine ? ones(normalized_shape) : Tensor());
}

Tensor RMSNormImpl::forward(const Tensor& input) {
  return functional::rms_norm(input, normalized_shape, {.weight = weight, .eps = options.eps});
}

std::string RMSNormImpl::extra_repr() const {
  return shape_tuple(normalized_shape) +
         ", eps=" + (options.eps ? detail::python_float(*options.eps) : "None") +
         ", elementwise_affine=" + detail::python_bool(options.elementwise_affine);
}

}  // namespace ember::nn
