// The host half of the CUDA embedding_renorm, apart from the CUDA build so that every build
// compiles and tests it: EmbeddingKernels::embedding_renorm's arguments become a
// kernels::RenormLaunch of either pass (renorm_launch.h). No device is touched.
#pragma once

#include <cstdint>

#include "backend/cuda/renorm_launch.h"
#include "ember/tensor.h"

namespace ember::cuda {

/// weight (num, D) contiguous and floating, indices int64 contiguous, owner int64 (num) scratch,
/// bad the launch's bad-index record (index_record.h); `[op] ...` for other operands.
kernels::RenormLaunch plan_renorm_launch(const char* op, kernels::RenormLaunch::Pass pass,
                                         const Tensor& weight, const Tensor& indices,
                                         const Tensor& owner, int64_t* bad, double max_norm,
                                         double norm_type);

}  // namespace ember::cuda
