// The host half of the CUDA pooling kernels, apart from the CUDA build so that every build
// compiles and tests it: max_pool2d's planes become a kernels::MaxPoolLaunch, max_pool's
// backward a scatter_add of grad at the indices (a kernels::GatherLaunch), the average pools and
// their backward a kernels::AvgPoolLaunch. No device is touched.
#pragma once

#include <cstdint>

#include "backend/backend.h"
#include "backend/cuda/gather_launch.h"
#include "backend/cuda/pool_launch.h"

namespace ember::cuda {

/// PoolKernels::max_pool2d's arguments (or adaptive_max_pool2d's, `adaptive`, p unused): input
/// (P, H, W) and out (P, Ho, Wo) contiguous in one floating dtype, indices (P, Ho, Wo) int64 or
/// undefined.
kernels::MaxPoolLaunch plan_max_pool_launch(const Tensor& input, const Tensor& out,
                                            const Tensor& indices, const backend::Pool2dParams& p,
                                            bool adaptive = false);

/// avg_pool2d (p, count_include_pad, divisor as PoolKernels takes them; adaptive: the
/// adaptive windows, p unused) of planes (P, H, W) into (P, Ho, Wo), or its backward (`backward`:
/// `planes` is grad (P, Ho, Wo) and `out` grad_input (P, H, W)).
kernels::AvgPoolLaunch plan_avg_pool_launch(const Tensor& planes, const Tensor& out,
                                            const backend::Pool2dParams& p, bool count_include_pad,
                                            int64_t divisor, bool adaptive, bool backward);

/// PoolKernels::max_pool_backward's arguments, grad_input already zeroed: grad_input's planes
/// (P, H W) += grad's (P, Ho Wo) at indices, along the flat plane; an index outside it is
/// recorded in `bad` (gather_launch.h).
kernels::GatherLaunch plan_max_pool_backward_launch(const Tensor& grad, const Tensor& indices,
                                                    const Tensor& grad_input, int64_t* bad);

}  // namespace ember::cuda
