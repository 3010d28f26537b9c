// See amp.h: one amp.cu launch per gradient on its device's current stream, each device's
// found_inf flag a zeroed int32 on that device, read back at the end.
#include "backend/cuda/amp.h"

#include <map>

#include "backend/buffers.h"
#include "backend/cuda/amp_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {

bool non_finite_check_and_unscale_(std::span<const Tensor> tensors, float inv_scale) {
  std::map<int, Tensor> flags;  // device index -> its found_inf flag
  for (const Tensor& t : tensors) {
    Tensor& flag = flags[t.device().index()];
    if (!flag.defined()) flag = backend::new_zeros({1}, kInt32, t.device());
    const kernels::UnscaleLaunch l =
        plan_unscale_launch(t, inv_scale, static_cast<int32_t*>(flag.data_ptr()));
    if (l.numel == 0) continue;
    launch_on(t.device(), "GradScaler.unscale_", &kernels::launch_unscale, l);
  }
  bool found = false;
  for (const auto& [index, flag] : flags) found |= flag.item<int32_t>() != 0;
  return found;
}

}  // namespace ember::cuda
