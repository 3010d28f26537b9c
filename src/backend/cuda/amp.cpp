// The host side of GradScaler's CUDA kernel: the kCUDA backend's amp entry
// (backend/amp_kernels.h). Each gradient becomes one amp.cu launch (amp_plan.cpp, tested in every
// build with the emulated kernel) on its device's current stream; each device's found_inf flag is
// a zeroed int32 on that device, read back once all of the tensors are queued (one
// synchronisation per device, not one per tensor).
#include <map>

#include "backend/backend.h"
#include "backend/buffers.h"
#include "backend/cuda/amp_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

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

}  // namespace

void install_amp_kernels(backend::Backend& b) {
  b.amp.non_finite_check_and_unscale_ = &non_finite_check_and_unscale_;
}

}  // namespace ember::cuda
