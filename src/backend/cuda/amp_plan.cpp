// See amp_plan.h.
#include "backend/cuda/amp_plan.h"

#include "backend/cuda/copy_plan.h"
#include "backend/cuda/elementwise_plan.h"

namespace ember::cuda {

kernels::UnscaleLaunch plan_unscale_launch(const Tensor& t, float inv_scale, int32_t* found_inf) {
  EMBER_CHECK(t.is_contiguous() && t.is_floating_point(), "GradScaler.unscale_",
              "expected contiguous floating tensors, got ", t.dtype(),
              t.is_contiguous() ? "" : " (not contiguous)");
  kernels::UnscaleLaunch l{};
  l.type = storage_type(t.dtype(), "GradScaler.unscale_");
  l.numel = t.numel();
  l.data = static_cast<char*>(t.data_ptr());
  l.inv_scale = inv_scale;
  l.found_inf = found_inf;
  l.threads = kElementwiseThreads;
  l.blocks = grid_blocks(l.numel);
  return l;
}

}  // namespace ember::cuda
