// The seam through which SyncBatchNorm gives BatchNorm the statistics of the whole group's batch.
// nn sits below the distributed layer (docs/layers.md), so BatchNormImplBase's forward cannot
// call the collectives itself: the distributed layer's synchronize_over
// (src/nn/parallel/sync_batchnorm.cpp), the only way a BatchNorm becomes synchronised, installs
// the function here before it hands the module a process group.
#pragma once

#include "ember/nn/functional/layers.h"

namespace ember::dist {
class ProcessGroup;
}

namespace ember::nn::detail {

using SyncBatchNormFn = Tensor (*)(const Tensor& input, const Tensor& running_mean,
                                   const Tensor& running_var,
                                   const functional::BatchNormFuncOptions& options,
                                   const dist::ProcessGroup& group);

void install_sync_batch_norm(SyncBatchNormFn fn);
/// The installed function; set whenever a BatchNorm holds a process group.
SyncBatchNormFn sync_batch_norm();

}  // namespace ember::nn::detail
