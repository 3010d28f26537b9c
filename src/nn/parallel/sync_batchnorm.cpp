// SyncBatchNorm's statistics: each rank's per-channel sum, sum of squares and count (float64)
// go through one all_reduce whose backward is the all_reduce of their gradients, so autograd
// gives every rank its share of the global batch's gradient (the role of PyTorch's
// SyncBatchNorm backward, which all-reduces sum_dy and sum_dy_xmu).
#include "ember/nn/layers/sync_batchnorm.h"

#include "autograd/function.h"
#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/math.h"
#include "ember/reduce.h"
#include "ember/shape.h"
#include "nn/batch_norm_sync.h"

namespace ember::nn {
namespace {

// all_reduce(SUM) as a differentiable op: every rank's output is the sum of the inputs, so the
// gradient of an input is the sum of the outputs' gradients over the ranks.
Tensor all_reduce_sum(const Tensor& input, const dist::ProcessGroup& group) {
  autograd::Recorder rec("SyncBatchNorm.all_reduce", {&input});
  Tensor out = input.contiguous().clone();
  dist::all_reduce(out, {.group = group});
  if (rec)
    rec.record("AllReduceBackward", {out}, {},
               [group](const autograd::Grads& g, const autograd::Saved&) {
                 Tensor grad = g[0].contiguous().clone();
                 dist::all_reduce(grad, {.group = group});
                 return autograd::TensorList{grad};
               });
  return out;
}

}  // namespace

namespace functional {

Tensor sync_batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                       const BatchNormFuncOptions& options, const dist::ProcessGroup& group) {
  EMBER_CHECK(input.dim() >= 2, "SyncBatchNorm", "expected at least 2D input (got ", input.dim(),
              "D input)");
  EMBER_CHECK(input.is_floating_point(), "SyncBatchNorm", "expected a floating-point input, got ",
              input.dtype());
  const int64_t channels = input.size(1);
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < input.dim(); ++d) dims.push_back(d);
  std::vector<int64_t> channel_shape(static_cast<size_t>(input.dim()), 1);
  channel_shape[1] = channels;

  const Tensor x = input.to(kFloat64);
  const double local_count = static_cast<double>(input.numel() / std::max<int64_t>(channels, 1));
  Tensor stats = cat({x.sum(dims), (x * x).sum(dims), full({1}, local_count, {.dtype = kFloat64})}, 0);
  stats = all_reduce_sum(stats, group);
  const double count = stats.narrow(0, 2 * channels, 1).item<double>();
  EMBER_CHECK(count > 1, "SyncBatchNorm",
              "expected more than 1 value per channel across the group when training, got input "
              "of size ", input.sizes(), " here and ", count, " values per channel in all");
  const Tensor mean = stats.narrow(0, 0, channels) / count;
  const Tensor var = stats.narrow(0, channels, channels) / count - mean * mean;  // biased
  const Tensor invstd = rsqrt(var + options.eps);

  if (running_mean.defined() && options.momentum) {
    NoGradGuard no_grad;
    const double m = *options.momentum;
    Tensor running_mean_ = running_mean, running_var_ = running_var;  // handles on the buffers
    running_mean_.mul_(1 - m).add_(mean.detach().to(running_mean.dtype()) * m);
    running_var_.mul_(1 - m).add_(var.detach().to(running_var.dtype()) *
                                  (m * count / (count - 1)));
  }
  Tensor out = (input - mean.to(input.dtype()).view(channel_shape)) *
               invstd.to(input.dtype()).view(channel_shape);
  if (options.weight.defined()) out = out * options.weight.view(channel_shape);
  if (options.bias.defined()) out = out + options.bias.view(channel_shape);
  return out;
}

}  // namespace functional

// Defined here, not with BatchNorm (src/nn/normalization.cpp), because it installs the
// collective statistics that BatchNorm's forward then calls (nn/batch_norm_sync.h).
void BatchNormImplBase::synchronize_over(const dist::ProcessGroup& group) {
  detail::install_sync_batch_norm(&functional::sync_batch_norm);
  sync_group_ = std::make_shared<dist::ProcessGroup>(group);
  // SyncBatchNorm takes any input of 2 or more dims, as PyTorch's.
  min_dim_ = 2;
  max_dim_ = 8;
}

void convert_sync_batchnorm_in_place(Module& module, const dist::ProcessGroup& process_group) {
  module.apply([&](Module& m) {
    if (auto* bn = dynamic_cast<BatchNormImplBase*>(&m)) bn->synchronize_over(process_group);
  });
}

}  // namespace ember::nn
