// nn::SyncBatchNorm and convert_sync_batchnorm: batch normalisation whose training statistics
// are those of the global batch (every rank's samples), reduced across the process group in
// forward, and whose backward reduces the gradient sums the same way, so a model trained on
// 2 ranks x batch B normalises exactly as one process on batch 2B.
//
//   nn::SyncBatchNorm bn(64);                               // like BatchNorm2d(64), any N-D input
//   auto model = nn::convert_sync_batchnorm(std::make_shared<Net>());  // every BatchNorm inside
//
// Every rank must run the forward (and backward) of each SyncBatchNorm in the same order:
// a rank that skips one leaves the others waiting in its all_reduce until the group's timeout
// (with EMBER_DISTRIBUTED_DEBUG=DETAIL, an error naming that rank instead). In eval mode the
// running statistics are used locally and nothing is reduced.
#pragma once

#include <memory>

#include "ember/distributed/process_group.h"
#include "ember/nn/functional/layers.h"
#include "ember/nn/layers/normalization.h"

namespace ember::nn {

class SyncBatchNormImpl : public BatchNormImplBase {
 public:
  explicit SyncBatchNormImpl(int64_t num_features, BatchNormOptions options = {},
                             const dist::ProcessGroup& process_group = {})
      : BatchNormImplBase(num_features, options, 2, 8) {
    synchronize_over(process_group);
  }
};
class SyncBatchNorm : public ModuleHolder<SyncBatchNormImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  SyncBatchNorm(int64_t num_features, BatchNormOptions options = {},
                const dist::ProcessGroup& process_group = {})
      : ModuleHolder(std::make_shared<SyncBatchNormImpl>(num_features, options, process_group)) {}
};

/// Switches every BatchNorm1d/2d in `module` (itself included) to synchronised statistics over
/// `process_group`, in place: the layers keep their parameters, buffers and handles (PyTorch
/// swaps in new SyncBatchNorm modules; a C++ model's typed members could not follow a swap).
/// Returns `module`, as PyTorch's convert_sync_batchnorm does.
void convert_sync_batchnorm_in_place(Module& module, const dist::ProcessGroup& process_group);
template <class M>
M convert_sync_batchnorm(M module, const dist::ProcessGroup& process_group = {}) {
  convert_sync_batchnorm_in_place(*module, process_group);
  return module;
}

namespace functional {
/// batch_norm in training with the statistics of the whole group's batch: per-channel sums and
/// counts all-reduced in forward (in float64), the gradient sums all-reduced in backward.
Tensor sync_batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                       const BatchNormFuncOptions& options, const dist::ProcessGroup& group);
}  // namespace functional

}  // namespace ember::nn
