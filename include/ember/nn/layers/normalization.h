// Normalisation layers: BatchNorm1d/2d (running statistics, cumulative average when momentum is
// unset, num_batches_tracked), InstanceNorm1d/2d/3d, LayerNorm, GroupNorm and RMSNorm, with
// PyTorch's parameters, buffers, defaults and repr.
//   nn::BatchNorm2d bn(64);  nn::LayerNorm ln({128});  nn::GroupNorm gn(8, 64);
//   nn::InstanceNorm2d in(64, {.affine = true});
#pragma once

#include <optional>
#include <vector>

#include "ember/nn/module.h"

namespace ember::dist {
class ProcessGroup;
}

namespace ember::nn {

struct BatchNormOptions {
  double eps = 1e-5;
  std::optional<double> momentum = 0.1;  // nullopt: cumulative moving average
  bool affine = true;
  bool track_running_stats = true;
};

/// Shared by BatchNorm1d and BatchNorm2d: weight/bias (C) when affine; running_mean/running_var
/// (C) and num_batches_tracked (int64 scalar) buffers when tracking running statistics.
class BatchNormImplBase : public Module {
 public:
  BatchNormImplBase(int64_t num_features, BatchNormOptions options, int64_t min_dim,
                    int64_t max_dim);
  Tensor forward(const Tensor& input);
  void reset_running_stats();
  void reset_parameters();
  std::string extra_repr() const override;
  /// "SyncBatchNorm" once synchronised, else the class's name.
  std::string name() const override;

  /// In training, statistics over every rank of `group` (nn::SyncBatchNorm and
  /// convert_sync_batchnorm, in ember/nn/layers/sync_batchnorm.h, switch it on).
  void synchronize_over(const dist::ProcessGroup& group);
  bool is_synchronized() const { return sync_group_ != nullptr; }

  int64_t num_features;
  BatchNormOptions options;
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;

 private:
  int64_t min_dim_, max_dim_;  // accepted input ranks
  std::shared_ptr<dist::ProcessGroup> sync_group_;
};

/// Input (N, C) or (N, C, L).
class BatchNorm1dImpl : public BatchNormImplBase {
 public:
  explicit BatchNorm1dImpl(int64_t num_features, BatchNormOptions options = {})
      : BatchNormImplBase(num_features, options, 2, 3) {}
};
class BatchNorm1d : public ModuleHolder<BatchNorm1dImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  BatchNorm1d(int64_t num_features, BatchNormOptions options = {})
      : ModuleHolder(std::make_shared<BatchNorm1dImpl>(num_features, options)) {}
};

/// Input (N, C, H, W).
class BatchNorm2dImpl : public BatchNormImplBase {
 public:
  explicit BatchNorm2dImpl(int64_t num_features, BatchNormOptions options = {})
      : BatchNormImplBase(num_features, options, 4, 4) {}
};
class BatchNorm2d : public ModuleHolder<BatchNorm2dImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  BatchNorm2d(int64_t num_features, BatchNormOptions options = {})
      : ModuleHolder(std::make_shared<BatchNorm2dImpl>(num_features, options)) {}
};

/// PyTorch's InstanceNorm defaults: no affine parameters, no running statistics.
struct InstanceNormOptions {
  double eps = 1e-5;
  double momentum = 0.1;
  bool affine = false;
  bool track_running_stats = false;
};

/// Shared by InstanceNorm1d/2d/3d: each (sample, channel) plane normalised over its own
/// elements; in eval with track_running_stats, by the running statistics instead. An input
/// without the batch dim (C, *) is taken as a batch of one.
class InstanceNormImplBase : public Module {
 public:
  InstanceNormImplBase(int64_t num_features, InstanceNormOptions options, int64_t spatial_dims);
  Tensor forward(const Tensor& input);
  void reset_running_stats();
  void reset_parameters();
  std::string extra_repr() const override;

  int64_t num_features;
  InstanceNormOptions options;
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;

 private:
  int64_t spatial_dims_;
};
#define EMBER_INSTANCE_NORM(Name, spatial_dims)                                             \
  class Name##Impl : public InstanceNormImplBase {                                          \
   public:                                                                                  \
    explicit Name##Impl(int64_t num_features, InstanceNormOptions options = {})             \
        : InstanceNormImplBase(num_features, options, spatial_dims) {}                      \
  };                                                                                        \
  class Name : public ModuleHolder<Name##Impl> {                                            \
   public:                                                                                  \
    using ModuleHolder::ModuleHolder;                                                       \
    Name(int64_t num_features, InstanceNormOptions options = {})                            \
        : ModuleHolder(std::make_shared<Name##Impl>(num_features, options)) {}              \
  };
EMBER_INSTANCE_NORM(InstanceNorm1d, 1)  // (N, C, L) or (C, L)
EMBER_INSTANCE_NORM(InstanceNorm2d, 2)  // (N, C, H, W) or (C, H, W)
EMBER_INSTANCE_NORM(InstanceNorm3d, 3)  // (N, C, D, H, W) or (C, D, H, W)
#undef EMBER_INSTANCE_NORM

struct LayerNormOptions {
  double eps = 1e-5;
  bool elementwise_affine = true;
  bool bias = true;
};
/// Normalises over the trailing normalized_shape dims; weight ones, bias zeros.
class LayerNormImpl : public Module {
 public:
  explicit LayerNormImpl(std::vector<int64_t> normalized_shape, LayerNormOptions options = {});
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  std::vector<int64_t> normalized_shape;
  LayerNormOptions options;
  Tensor weight, bias;
};
class LayerNorm : public ModuleHolder<LayerNormImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  LayerNorm(std::vector<int64_t> normalized_shape, LayerNormOptions options = {})
      : ModuleHolder(std::make_shared<LayerNormImpl>(std::move(normalized_shape), options)) {}
};

struct GroupNormOptions {
  double eps = 1e-5;
  bool affine = true;
};
class GroupNormImpl : public Module {
 public:
  GroupNormImpl(int64_t num_groups, int64_t num_channels, GroupNormOptions options = {});
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  int64_t num_groups, num_channels;
  GroupNormOptions options;
  Tensor weight, bias;
};
class GroupNorm : public ModuleHolder<GroupNormImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  GroupNorm(int64_t num_groups, int64_t num_channels, GroupNormOptions options = {})
      : ModuleHolder(std::make_shared<GroupNormImpl>(num_groups, num_channels, options)) {}
};

struct RMSNormOptions {
  std::optional<double> eps = {};  // default: the compute dtype's machine epsilon
  bool elementwise_affine = true;
};
class RMSNormImpl : public Module {
 public:
  explicit RMSNormImpl(std::vector<int64_t> normalized_shape, RMSNormOptions options = {});
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  std::vector<int64_t> normalized_shape;
  RMSNormOptions options;
  Tensor weight;
};
class RMSNorm : public ModuleHolder<RMSNormImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  RMSNorm(std::vector<int64_t> normalized_shape, RMSNormOptions options = {})
      : ModuleHolder(std::make_shared<RMSNormImpl>(std::move(normalized_shape), options)) {}
};

}  // namespace ember::nn
